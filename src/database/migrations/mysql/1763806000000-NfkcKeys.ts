import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Case keys become NFKC case folds (DECISIONS "Items": `ＡＢＣ-1` is `abc-1`);
 * down goes back to lower-cased NFC. The folds, the plan and the statements
 * are this migration's own copies, as they were when it was written: the
 * service's fold (src/database/case-key.ts) may change later, and then with a
 * migration of its own.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class NfkcKeys1763806000000 implements MigrationInterface {
  name = 'NfkcKeys1763806000000';

  async up(q: QueryRunner): Promise<void> {
    await refoldKeys(q, nfkcFold, this.name);
  }

  async down(q: QueryRunner): Promise<void> {
    await refoldKeys(q, nfcFold, this.name);
  }
}

/** The fold going up: NFKC, lower case, NFKC again. */
export const nfkcFold = (value: string): string => value.normalize('NFKC').toLowerCase().normalize('NFKC');
/** The fold before, going down: lower-cased NFC. */
export const nfcFold = (value: string): string => value.normalize('NFC').toLowerCase();

/** Every key column, with the column it folds and its length in characters; oldest rows first. */
const KEY_COLUMNS = [
  {
    select: 'SELECT `partNo` AS id, `shortID` AS source, `shortIdKey` AS `key` FROM `item` ORDER BY `created`, `partNo`',
    update: 'UPDATE `item` SET `shortIdKey` = ? WHERE `partNo` = ?',
    source: 'shortID', length: 64, what: 'item', idName: 'partNo',
  },
  {
    select: 'SELECT `id` AS id, `alias` AS source, `aliasKey` AS `key` FROM `item_alias` ORDER BY `created`, `id`',
    update: 'UPDATE `item_alias` SET `aliasKey` = ? WHERE `id` = ?',
    source: 'alias', length: 64, what: 'alias', idName: 'id',
  },
  {
    select: 'SELECT `wID` AS id, `name` AS source, `nameKey` AS `key` FROM `warehouse` ORDER BY `created`, `wID`',
    update: 'UPDATE `warehouse` SET `nameKey` = ? WHERE `wID` = ?',
    source: 'name', length: 100, what: 'warehouse', idName: 'wID',
  },
  {
    select: 'SELECT `id` AS id, `name` AS source, `nameKey` AS `key` FROM `permission_group` ORDER BY `created`, `id`',
    update: 'UPDATE `permission_group` SET `nameKey` = ? WHERE `id` = ?',
    source: 'name', length: 64, what: 'group', idName: 'id',
  },
  {
    select: 'SELECT `clientId` AS id, `name` AS source, `nameKey` AS `key` FROM `integration_client` ORDER BY `created`, `clientId`',
    update: 'UPDATE `integration_client` SET `nameKey` = ? WHERE `clientId` = ?',
    source: 'name', length: 64, what: 'client', idName: 'clientId',
  },
];

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

const charCount = (s: string) => [...s].length;

/**
 * Which key each row gets, given the rows oldest first. Rows that fold to the
 * same new key were distinct before (`ABC-1` and `ＡＢＣ-1`); nothing is
 * merged, renamed or deleted. The new key goes to the row that already holds
 * it (what a lookup by that spelling found until now), else to the oldest;
 * every other row of the group keeps its old key, which no lookup finds again
 * and no new row can collide with, and is reported so that an operator can
 * rename it. A new key longer than the column is handled alike.
 */
export function planKeys(rows: KeyRow[], fold: (s: string) => string, maxLength: number): { updates: Array<{ row: KeyRow; key: string }>; shadowed: ShadowedRow[] } {
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

async function refoldKeys(q: QueryRunner, fold: (s: string) => string, migration: string): Promise<void> {
  const log = new Logger(migration);
  for (const c of KEY_COLUMNS) {
    const plan = planKeys((await q.query(c.select)) as KeyRow[], fold, c.length);
    // Two steps, so that no row ever takes a key another row still holds (the unique index would refuse it).
    for (const [i, u] of plan.updates.entries()) await q.query(c.update, [`\u0002${i}`, u.row.id]);
    for (const u of plan.updates) await q.query(c.update, [u.key, u.row.id]);
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
