import mysql2 from 'mysql2';
import { countingPools, PoolUse } from './pool-use.js';

/**
 * The session settings of every MySQL/MariaDB connection the service opens
 * (docs/operations.md "Session settings"), whatever the server's globals:
 *
 * - `sql_mode` without NO_BACKSLASH_ESCAPES or ANSI_QUOTES: mysql2 puts
 *   parameters into the statement's text client-side, escaping a quote as
 *   `\'`, which is safe only while a backslash escapes; and the service's
 *   SQL quotes text with `'`. The list is valid on MySQL 8 and MariaDB 10.11.
 * - utf8mb4 with the collation of the schema, and UTC (DATETIME columns hold
 *   UTC; NOW() in a statement must agree with the dates mysql2 sends).
 * - READ COMMITTED, once per connection rather than before each transaction
 *   (TransactionRunner: callers lock what they read with FOR UPDATE).
 */
export const SESSION_SQL_MODE = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
export const SESSION_STATEMENTS: readonly string[] = [
  'SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci',
  `SET SESSION sql_mode = '${SESSION_SQL_MODE}', time_zone = '+00:00'`,
  'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
];

/** A new pooled connection of mysql2's callback API, as its pool's 'connection' event gives it. */
interface NewConnection {
  query(sql: string, callback: (error: Error | null) => void): unknown;
  destroy(): void;
}

/**
 * Sets SESSION_STATEMENTS on each connection `pool` opens. mysql2 emits
 * 'connection' before it hands a new connection to whoever asked for it, and
 * runs a connection's commands in the order they were queued, so the settings
 * precede the first query of its user. A connection where one of them fails
 * is destroyed: what was queued after it fails with it, and the pool opens
 * another.
 */
export function settingSessions<P extends { on(event: 'connection', listener: (connection: NewConnection) => void): unknown }>(pool: P, statements = SESSION_STATEMENTS): P {
  pool.on('connection', (connection) => {
    for (const sql of statements) {
      connection.query(sql, (error) => {
        if (!error) return;
        // Said where an operator sees it: otherwise only the waiting query's failure ("write after end") would show.
        process.emitWarning(`MySQL/MariaDB refused a session setting (${sql}): ${error.message}; the connection is closed`, 'SessionSettingWarning');
        connection.destroy();
      });
    }
  });
  return pool;
}

/**
 * A driver module for TypeORM's MySQL/MariaDB (its documented `driver`
 * option) instead of mysql2 loaded by TypeORM itself: mysql2's own exports,
 * with a `createPool` whose pools set the session (`settingSessions`) from
 * their first connection, which TypeORM opens while it initialises, and have
 * their connections counted (`PoolUse`, read back with `poolUse`). One per
 * data source, so that each counts its own pool.
 */
export function mysqlDriver() {
  const use = new PoolUse();
  return countingPools({ ...mysql2, createPool: (config: mysql2.PoolOptions) => use.watch(settingSessions(mysql2.createPool(config))) }, use);
}
