/**
 * Unique-key violations, recognised once for both drivers: MySQL/MariaDB
 * ER_DUP_ENTRY (1062) and SQLite's UNIQUE / PRIMARY KEY constraint codes.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = (error as { driverError?: unknown })?.driverError ?? error;
  const { code, errno } = (e ?? {}) as { code?: unknown; errno?: unknown };
  return code === 'ER_DUP_ENTRY' || errno === 1062 || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
