import { DomainError } from '../errors.js';

/**
 * Unique-key violations, recognised once for both drivers: MySQL/MariaDB
 * ER_DUP_ENTRY (1062) and SQLite's UNIQUE / PRIMARY KEY constraint codes.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = (error as { driverError?: unknown })?.driverError ?? error;
  const { code, errno } = (e ?? {}) as { code?: unknown; errno?: unknown };
  return code === 'ER_DUP_ENTRY' || errno === 1062 || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** 503 `service_unavailable`: the database did not answer (`/health`), or a request's connection died. */
export class DatabaseUnavailable extends DomainError {
  constructor(message = 'The database is not answering.', headers: Record<string, string> = {}) {
    super('service_unavailable', message, null, headers);
  }
}

export const LOST_CONNECTION_RETRY = 'The database connection was lost; retry the request (a write with the same Idempotency-Key).';
export const LOST_CONNECTION_UNKNOWN =
  'The database connection was lost; the change may or may not have been made. Check before sending it again, and send writes with an Idempotency-Key so that a retry is safe.';

/**
 * The answer to a request whose database connection died under it. A read,
 * or a write with an Idempotency-Key, may simply be retried: a commit that
 * landed before the connection died is replayed, not done again. A write
 * without a key may have been committed, so it is not invited back.
 */
export function lostConnection(req: { method: string; headers: Record<string, unknown> }): DatabaseUnavailable {
  const safe = req.method === 'GET' || req.method === 'HEAD' || req.headers['idempotency-key'] !== undefined;
  return safe ? new DatabaseUnavailable(LOST_CONNECTION_RETRY, { 'Retry-After': '1' }) : new DatabaseUnavailable(LOST_CONNECTION_UNKNOWN);
}

// MySQL/MariaDB errnos of a connection that died or a server that went away:
// 1927 connection killed (MariaDB), 1053 server shutdown, 1317 query interrupted,
// 1040 too many connections, 1158–1161 network read/write errors,
// 2002/2003 cannot connect, 2006 server gone away, 2013 lost connection, 2055 lost at handshake;
// 1047 (ER_UNKNOWN_COM_ERROR) is what a Galera node answers while it is not part of the
// primary component or still joining ("WSREP has not yet prepared node for application use").
const UNAVAILABLE_ERRNOS = new Set([1927, 1053, 1317, 1040, 1158, 1159, 1160, 1161, 2002, 2003, 2006, 2013, 2055, 1047]);

/**
 * The database did not answer: mysql2 marks connection-level failures
 * `fatal` (a socket reset or refused, a connection killed or dropped); the
 * server's own errnos say the same; and mysql2 refuses queries on a
 * connection or pool that has just closed. Only the driver's own errors
 * count (its `fatal` flag), so a Redis socket error stays what it is.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && depth < 4; depth++) {
    const { fatal, errno, message } = e as { fatal?: unknown; errno?: unknown; message?: unknown };
    if (fatal === true) return true;
    if (typeof errno === 'number' && UNAVAILABLE_ERRNOS.has(errno)) return true;
    if (typeof message === 'string' && /connection is in closed state|^Pool is closed/.test(message)) return true;
    e = (e.driverError ?? e.cause) as Record<string, unknown> | undefined;
  }
  return false;
}
