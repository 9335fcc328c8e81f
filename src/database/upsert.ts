import type { EntityManager } from 'typeorm';

/**
 * Adds 1 to `counter` in the row of `table` whose primary key `key` is
 * `value`, creating the row at 1 when it is missing. One statement, so two
 * transactions counting the same row never both insert it. MySQL/MariaDB and
 * SQLite spell the upsert differently; the dialect is the manager's DataSource's.
 */
export function upsertIncrement(m: EntityManager, table: string, key: string, value: number, counter: string): Promise<unknown> {
  if (m.connection.options.type === 'mysql') {
    return m.query(`INSERT INTO \`${table}\` (\`${key}\`, \`${counter}\`) VALUES (?, 1) ON DUPLICATE KEY UPDATE \`${counter}\` = \`${counter}\` + 1`, [value]);
  }
  return m.query(`INSERT INTO "${table}" ("${key}", "${counter}") VALUES (?, 1) ON CONFLICT ("${key}") DO UPDATE SET "${counter}" = "${counter}" + 1`, [value]);
}
