import { isDatabaseUnavailable, isUniqueViolation } from './errors.js';

describe('database errors', () => {
  it('recognises a dead connection however it is wrapped', () => {
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST' });
    expect(isDatabaseUnavailable(lost)).toBe(true);
    expect(isDatabaseUnavailable({ message: 'query failed', driverError: { errno: 1927, code: 'ER_CONNECTION_KILLED' } })).toBe(true);
    expect(isDatabaseUnavailable({ message: 'x', cause: { driverError: { code: 'ECONNREFUSED' } } })).toBe(true);
    expect(isDatabaseUnavailable(new Error("Can't add new command when connection is in closed state"))).toBe(true);
  });

  it('leaves every other failure alone', () => {
    const duplicate = { driverError: { code: 'ER_DUP_ENTRY', errno: 1062 } };
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(isDatabaseUnavailable(duplicate)).toBe(false);
    expect(isDatabaseUnavailable({ driverError: { errno: 1213 } })).toBe(false); // deadlock: retried inside, never a 503
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
