import { Logger } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { caseKey } from '../case-key.js';
import type { Dialect } from './inventory-schema.js';

/**
 * Recomputing the stored case keys when the fold changes (here: lower-cased
 * NFC → NFKC case fold, DECISIONS "Items": `ＡＢＣ-1` is `abc-1`). Every
 * column written through `caseKey`, with the column it folds and its length.
 */
export const KEY_COLUMNS = [
  { table: 'item', id: 'partNo', source: 'shortID', key: 'shortIdKey', length: 64, what: 'item', idName: 'partNo' },
  { table: 'item_alias', id: 'id', source: 'alias', key: 'aliasKey', length: 64, what: 'alias', idName: 'id' },
  { table: 'warehouse', id: 'wID', source: 'name', key: 'nameKey', length: 100, what: 'warehouse', idName: 'wID' },
  { table: 'permission_group', id: 'id', source: 'name', key: 'nameKey', length: 64, what: 'group', idName: 'id' },
  { table: 'integration_client', id: 'clientId', source: 'name', key: 'nameKey', length: 64, what: 'client', idName: 'clientId' },
] as const;

export interface KeyRow {
  id: string | number;
  source: string;
  key: string;
}

/** A row that cannot take its new key: it keeps the key it had. */
export interface ShadowedRow {
  row: KeyRow;
  wanted: string;
  /** The row that holds the key instead, or null when the key is too long for the column. */
  holder: KeyRow | null;
}

export interface KeyPlan {
  updates: Array<{ row: KeyRow; key: string }>;
  shadowed: ShadowedRow[];
}

const charCount = (s: string) => [...s].length;

/**
 * Which key each row gets, given the rows oldest first. Rows that fold to the
 * same new key were distinct before (`ABC-1` and `ＡＢＣ-1`); nothing is
 * merged, renamed or deleted. The new key goes to the row that already holds
 * it (what a lookup by that spelling found until now), else to the oldest;
 * every other row of the group keeps its old key. An old key is not
 * normalised, so no lookup finds it again and no new row can collide with it:
 * the row stays listed and reachable by its id, and is reported so that an
 * operator can rename it. A new key longer than the column is handled alike.
 */
export function planKeys(rows: KeyRow[], fold: (s: string) => string, maxLength: number): KeyPlan {
  const groups = new Map<string, KeyRow[]>();
  for (const row of rows) {
    const wanted = fold(row.source);
    groups.set(wanted, [...(groups.get(wanted) ?? []), row]);
  }
  const target = new Map<KeyRow, string>();
  const shadowed: ShadowedRow[] = [];
  for (const [wanted, group] of groups) {
    if (charCount(wanted) > maxLength) {
      for (const row of group) shadowed.push({ row, wanted, holder: null });
      continue;
    }
    const holder = group.find((r) => r.key === wanted) ?? group[0];
    target.set(holder, wanted);
    for (const row of group) if (row !== holder) shadowed.push({ row, wanted, holder });
  }
  // A kept old key is not normalised, so it never equals a new key; should it
  // ever, that row gets a key no input can produce (input refuses control characters).
  const taken = new Set(target.values());
  shadowed.forEach(({ row }, i) => target.set(row, taken.has(row.key) ? `\u0001${i}` : row.key));
  const updates = rows.filter((r) => target.get(r) !== r.key).map((row) => ({ row, key: target.get(row)! }));
  return { updates, shadowed };
}

/** Applies the fold to every key column; `fold` is caseKey going up and the previous fold going down. */
export async function refoldKeys(q: QueryRunner, d: Dialect, fold: (s: string) => string, migration: string): Promise<void> {
  const n = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const log = new Logger(migration);
  for (const c of KEY_COLUMNS) {
    const rows = ((await q.query(`SELECT ${n(c.id)} AS id, ${n(c.source)} AS source, ${n(c.key)} AS ${n('key')} FROM ${n(c.table)} ORDER BY ${n('created')}, ${n(c.id)}`)) as KeyRow[]);
    const plan = planKeys(rows, fold, c.length);
    const set = `UPDATE ${n(c.table)} SET ${n(c.key)} = ? WHERE ${n(c.id)} = ?`;
    // Two steps, so that no row ever takes a key another row still holds (the unique index would refuse it).
    for (const [i, u] of plan.updates.entries()) await q.query(set, [`\u0002${i}`, u.row.id]);
    for (const u of plan.updates) await q.query(set, [u.key, u.row.id]);
    for (const s of plan.shadowed) {
      const who = (r: KeyRow) => `${c.what} ${c.idName} ${r.id} "${r.source}"`;
      log.warn(
        s.holder
          ? `${who(s.row)} has the same key "${s.wanted}" as ${who(s.holder)}, which keeps it: ${c.what} ${c.idName} ${s.row.id} is not found by ${c.source} until it is renamed`
          : `${who(s.row)} would have a key longer than ${c.length} characters: it keeps its old key until it is renamed`,
      );
    }
  }
}

/** The fold before NFKC, for going down: lower-cased NFC. */
export const nfcFold = (value: string): string => value.normalize('NFC').toLowerCase();

/** The migration's up and down, for both dialects. */
export const keyFoldUp = (q: QueryRunner, d: Dialect, name: string) => refoldKeys(q, d, caseKey, name);
export const keyFoldDown = (q: QueryRunner, d: Dialect, name: string) => refoldKeys(q, d, nfcFold, name);
