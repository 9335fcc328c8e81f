import type { ValueTransformer } from 'typeorm';

/**
 * Case-insensitive identity for strings that must be unique regardless of case
 * (DECISIONS "Items": `abc-1`, `ABC-1` and full-width `ＡＢＣ-1` are the same
 * item). Collations differ between MySQL, MariaDB and SQLite (NOCASE folds
 * ASCII only, *_ci collations also fold accents), so each such column has a
 * companion key column holding this folded form under a plain unique index:
 * the same rule on every database.
 *
 * The fold is Unicode NFKC, lower case, NFKC again (lower-casing can leave a
 * string that is no longer normalised). NFKC maps compatibility look-alikes
 * (full-width letters, ligatures, superscripts) to their plain forms; accents
 * stay, so `ÄBC-1` and `ABC-1` remain two items. The fold is idempotent.
 * Changing it means a new migration recomputing every stored key (lot.shortIdKey, a copy of its item's, too), as NfkcKeys did.
 */
export function caseKey(value: string): string {
  return value.normalize('NFKC').toLowerCase().normalize('NFKC');
}

/**
 * Column options every key column needs on MySQL/MariaDB: a binary collation,
 * so that the database compares exactly the folded bytes (the default
 * utf8mb4_unicode_ci would also treat `ä` and `a` as equal). SQLite compares
 * bytes already.
 */
export const MYSQL_KEY_COLLATION = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_bin';

/** For a key column whose value is always written through `caseKey`. */
export const caseKeyTransformer: ValueTransformer = {
  to: (value: string | null | undefined) => (typeof value === 'string' ? caseKey(value) : value),
  from: (raw: string | null) => raw,
};
