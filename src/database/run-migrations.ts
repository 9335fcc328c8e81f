import { type DataSource, type Migration, MigrationExecutor } from 'typeorm';

/** How long a runner waits for another one's migrations before giving up. */
const LOCK_WAIT_SECONDS = 300;
/** Named locks are server-wide: one per database, within MySQL's 64 characters. */
const LOCK_NAME = "CONCAT('inventory_migrations_', SHA1(DATABASE()))";

/**
 * Applies pending migrations, one runner at a time, so that instances started
 * together (or `npm run migration:run` beside them) never race: the first
 * applies them, the others then find nothing pending. Used at start-up and by
 * `npm run migration:run`.
 *
 * MySQL/MariaDB: a named lock (`GET_LOCK`), taken and released on the
 * connection that runs the migrations, each in its own transaction (DDL
 * commits implicitly there anyway). The server drops the lock if that
 * connection dies, so a crashed runner never blocks the next.
 *
 * SQLite: `BEGIN IMMEDIATE` takes the file's write lock before the pending
 * migrations are even looked up, and all of them run in that one transaction
 * (SQLite's DDL is transactional); another process waits for it through the
 * busy timeout.
 */
export async function runMigrations(dataSource: DataSource): Promise<Migration[]> {
  const runner = dataSource.createQueryRunner('master');
  const executor = new MigrationExecutor(dataSource, runner);
  try {
    if (dataSource.options.type === 'mysql') {
      const [{ got }] = (await runner.query(`SELECT GET_LOCK(${LOCK_NAME}, ?) AS got`, [LOCK_WAIT_SECONDS])) as Array<{ got: number | string | null }>;
      if (Number(got) !== 1) throw new Error(`another process has been applying migrations for over ${LOCK_WAIT_SECONDS} s`);
      try {
        executor.transaction = 'each';
        return await executor.executePendingMigrations();
      } finally {
        await runner.query(`SELECT RELEASE_LOCK(${LOCK_NAME})`);
      }
    }
    await runner.query('BEGIN IMMEDIATE');
    try {
      executor.transaction = 'none';
      const applied = await executor.executePendingMigrations();
      await runner.query('COMMIT');
      return applied;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await runner.release();
  }
}

/**
 * MIGRATIONS_AT_START=false: start-up applies nothing, and refuses to serve a
 * database whose schema is behind this build (`npm run migration:run` first),
 * rather than fail later on a missing column.
 */
export async function refusePendingMigrations(dataSource: DataSource): Promise<void> {
  const pending = await new MigrationExecutor(dataSource).getPendingMigrations();
  if (pending.length) {
    throw new Error(
      `${pending.length} migration(s) pending (${pending.map((m) => m.name).join(', ')}) and MIGRATIONS_AT_START=false: run \`npm run migration:run\` first`,
    );
  }
}
