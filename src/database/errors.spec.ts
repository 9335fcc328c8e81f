import { isDatabaseUnavailable, isUniqueViolation, LOST_CONNECTION_RETRY, LOST_CONNECTION_UNKNOWN, lostConnection } from './errors.js';

describe('database errors', () => {
  it('recognises a dead connection however it is wrapped', () => {
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
    expect(isDatabaseUnavailable(lost)).toBe(true);
    expect(isDatabaseUnavailable({ message: 'query failed', driverError: { errno: 1927, code: 'ER_CONNECTION_KILLED' } })).toBe(true);
    expect(isDatabaseUnavailable({ message: 'x', cause: { driverError: { code: 'ECONNREFUSED', fatal: true } } })).toBe(true);
    expect(isDatabaseUnavailable(new Error("Can't add new command when connection is in closed state"))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Pool is closed.'))).toBe(true);
    // A Galera node out of the primary component, or still joining.
    expect(isDatabaseUnavailable({ driverError: { errno: 1047, code: 'ER_UNKNOWN_COM_ERROR', message: 'WSREP has not yet prepared node for application use' } })).toBe(true);
  });

  it('leaves every other failure alone', () => {
    const duplicate = { driverError: { code: 'ER_DUP_ENTRY', errno: 1062 } };
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(isDatabaseUnavailable(duplicate)).toBe(false);
    expect(isDatabaseUnavailable({ driverError: { errno: 1213 } })).toBe(false); // deadlock: retried inside, never a 503
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    // A socket error that is not the driver's (Redis, say) is not the database's.
    expect(isDatabaseUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

describe('the answer to a lost connection', () => {
  it('invites a retry of a read or a keyed write, and not of a write without a key', () => {
    expect(lostConnection({ method: 'GET', headers: {} })).toMatchObject({ code: 'service_unavailable', message: LOST_CONNECTION_RETRY, headers: { 'Retry-After': '1' } });
    expect(lostConnection({ method: 'POST', headers: { 'idempotency-key': 'k' } })).toMatchObject({ message: LOST_CONNECTION_RETRY, headers: { 'Retry-After': '1' } });
    const unknown = lostConnection({ method: 'POST', headers: {} });
    expect(unknown).toMatchObject({ code: 'service_unavailable', message: LOST_CONNECTION_UNKNOWN, headers: {} });
  });
});
