/**
 * Unique-key violations, recognised once for both drivers: MySQL/MariaDB
 * ER_DUP_ENTRY (1062) and SQLite's UNIQUE / PRIMARY KEY constraint codes.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = (error as { driverError?: unknown })?.driverError ?? error;
  const { code, errno } = (e ?? {}) as { code?: unknown; errno?: unknown };
  return code === 'ER_DUP_ENTRY' || errno === 1062 || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** mysql2 / Node codes and MySQL errnos of a connection that died or a server that went away. */
const UNAVAILABLE_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR', 'PROTOCOL_SEQUENCE_TIMEOUT',
  'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH',
  'ER_CONNECTION_KILLED', 'ER_SERVER_SHUTDOWN', 'ER_QUERY_INTERRUPTED', 'ER_CON_COUNT_ERROR', 'ER_CLIENT_INTERACTION_TIMEOUT',
]);
// 1927 connection killed (MariaDB), 1053 server shutdown, 1317 query interrupted,
// 1040 too many connections, 2006 server gone away, 2013 lost connection.
const UNAVAILABLE_ERRNOS = new Set([1927, 1053, 1317, 1040, 2006, 2013]);

/**
 * The database did not answer: a connection that was killed or dropped, a
 * server shutting down or refusing connections. The request did not fail for
 * anything the client sent, and may be retried (a write with its
 * Idempotency-Key: a commit that landed before the connection died replays).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && depth < 4; depth++) {
    const { code, errno, message } = e as { code?: unknown; errno?: unknown; message?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof errno === 'number' && UNAVAILABLE_ERRNOS.has(errno)) return true;
    // mysql2, when a query is put on a connection that has just died.
    if (typeof message === 'string' && /connection is in closed state|Connection lost/i.test(message)) return true;
    e = (e.driverError ?? e.cause) as Record<string, unknown> | undefined;
  }
  return false;
}
