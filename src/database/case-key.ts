import type { ValueTransformer } from 'typeorm';

/**
 * Case-insensitive identity for strings that must be unique regardless of case
 * (DECISIONS "Items": `abc-1` and `ABC-1` are the same item). Collations differ
 * between MySQL, MariaDB and SQLite (NOCASE folds ASCII only, *_ci collations
 * also fold accents), so each such column has a companion key column holding
 * this folded form under a plain unique index: the same rule on every database.
 */
export function caseKey(value: string): string {
  return value.normalize('NFC').toLowerCase();
}

/** For a key column whose value is always written through `caseKey`. */
export const caseKeyTransformer: ValueTransformer = {
  to: (value: string | null | undefined) => (typeof value === 'string' ? caseKey(value) : value),
  from: (raw: string | null) => raw,
};
