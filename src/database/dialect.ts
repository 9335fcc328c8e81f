import type { DataSource, EntityManager } from 'typeorm';

/*
 * The dialect a statement is built for, for the layers above database/ that
 * build statements (pagination's seek, the sequencer's lock): they ask
 * here rather than read the data source's options themselves, and the SQL
 * that differs between the dialects is written here.
 */

/** Whether `db` (a data source, or a manager of one) is MySQL/MariaDB; otherwise it is SQLite. */
export function isMysql(db: DataSource | EntityManager): boolean {
  return ('dataSource' in db ? db.dataSource : db).options.type === 'mysql';
}

/**
 * A named parameter (`:name`) compared with a DECIMAL column as a decimal.
 * MySQL/MariaDB compare a decimal with text (how decimals are sent) as a
 * double, so the text is cast; SQLite keeps these columns as doubles and
 * takes the parameter as it is.
 */
export function decimalParameter(name: string, mysql: boolean): string {
  return mysql ? `CAST(:${name} AS DECIMAL(40,4))` : `:${name}`;
}
