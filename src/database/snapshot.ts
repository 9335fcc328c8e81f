import type { DataSource, QueryRunner } from 'typeorm';

/**
 * Runs read-only `work` inside one snapshot of the database and rolls back:
 * REPEATABLE READ on InnoDB (a consistent read view for the whole
 * transaction), a read transaction on SQLite (WAL readers see one snapshot).
 * For reports whose several queries must agree with each other.
 */
export async function inSnapshot<T>(db: DataSource, work: (q: QueryRunner) => Promise<T>): Promise<T> {
  const runner = db.createQueryRunner();
  await runner.startTransaction(db.options.type === 'mysql' ? 'REPEATABLE READ' : undefined);
  try {
    return await work(runner);
  } finally {
    await runner.rollbackTransaction().catch(() => undefined);
    await runner.release();
  }
}
