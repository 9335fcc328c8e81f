import type { EntityManager } from 'typeorm';
import type { Statement } from './statements.js';

/**
 * Adds `by` to `counter` in the rows of `table` whose primary key `key` is
 * each `value`, creating a missing row at `by`. One statement, the rows in
 * the order given (callers sort them, so that two transactions lock them in
 * the same order), and two transactions counting the same row never both
 * insert it. MySQL/MariaDB and SQLite spell the upsert differently; the
 * dialect is the manager's DataSource's.
 */
export function upsertAdd(m: EntityManager, table: string, key: string, counter: string, rows: Array<{ value: number; by: number }>): Promise<unknown> {
  const { sql, params } = upsertAddStatement(m, table, key, counter, rows);
  return m.query(sql, params);
}

/** `upsertAdd` as a statement, to run with the commit (the counters a transaction gathers: counters.ts). */
export function upsertAddStatement(m: EntityManager, table: string, key: string, counter: string, rows: Array<{ value: number; by: number }>): Statement {
  const values = rows.map(() => '(?, ?)').join(', ');
  const params = rows.flatMap((r) => [r.value, r.by]);
  if (m.connection.options.type === 'mysql') {
    return { sql: `INSERT INTO \`${table}\` (\`${key}\`, \`${counter}\`) VALUES ${values} ON DUPLICATE KEY UPDATE \`${counter}\` = \`${counter}\` + VALUES(\`${counter}\`)`, params };
  }
  return { sql: `INSERT INTO "${table}" ("${key}", "${counter}") VALUES ${values} ON CONFLICT ("${key}") DO UPDATE SET "${counter}" = "${counter}" + excluded."${counter}"`, params };
}
