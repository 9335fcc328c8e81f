import type { Dialect } from './inventory-schema.js';

/**
 * `list_count`: exact list totals kept by the transactions that change the
 * rows, so that no page counts rows. One counter is (list, scope); its value
 * is the sum of its slot rows, and a writer adds to one slot picked at random,
 * so concurrent writers of one counter seldom wait on the same row lock.
 *
 *   list    scope                              counts
 *   lots    "<wID>"                            lots of a warehouse, archived included (what GET /Inventory lists)
 *   items   "all" | "active"                   items, and those not discontinued
 *   ledger  "<fromWid or 0>><toWid or 0>"      ledger rows per pair of warehouses (a receive has no from, an issue no to)
 *   stock   "<wID>,<wID>,…" ascending          items whose stock_level rows are in exactly these warehouses
 *
 * A stock scope longer than MAX_SCOPE is kept under "*" (an item in very many
 * warehouses): the readers then count instead. The scopes are written the
 * same way by src/inventory/list-counts.ts.
 */
export const MAX_SCOPE = 1000;

export function listCountersUp(d: Dialect): string[] {
  const table =
    d === 'mysql'
      ? 'CREATE TABLE `list_count` (`list` varchar(16) NOT NULL, `scope` varchar(1000) NOT NULL, `slot` smallint NOT NULL, `n` bigint NOT NULL, ' +
        'PRIMARY KEY (`list`, `scope`, `slot`)) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin'
      : 'CREATE TABLE "list_count" ("list" varchar(16) NOT NULL, "scope" varchar(1000) NOT NULL, "slot" smallint NOT NULL, "n" bigint NOT NULL, PRIMARY KEY ("list", "scope", "slot"))';
  return [table, ...listCountersFill(d)];
}

export function listCountersDown(d: Dialect): string[] {
  return [d === 'mysql' ? 'DROP TABLE `list_count`' : 'DROP TABLE "list_count"'];
}

/**
 * Recomputes every counter from the rows (into slot 0): the migration's
 * backfill, and for data written around the service (the benchmark's seed).
 */
export function listCountersFill(d: Dialect): string[] {
  const text = (sql: string) => (d === 'mysql' ? `CAST(${sql} AS CHAR)` : `CAST(${sql} AS TEXT)`);
  const concat = (...parts: string[]) => (d === 'mysql' ? `CONCAT(${parts.join(', ')})` : parts.join(' || '));
  const wids = d === 'mysql' ? "GROUP_CONCAT(wID ORDER BY wID SEPARATOR ',')" : "group_concat(wID, ',' ORDER BY wID)";
  const insert = 'INSERT INTO list_count (list, scope, slot, n)';
  return [
    'DELETE FROM list_count',
    `${insert} SELECT 'lots', ${text('wID')}, 0, COUNT(*) FROM lot GROUP BY wID`,
    `${insert} SELECT 'items', 'all', 0, COUNT(*) FROM item`,
    `${insert} SELECT 'items', 'active', 0, COUNT(*) FROM item WHERE discontinued = 0`,
    `${insert} SELECT 'ledger', ${concat(text('COALESCE(fromWid, 0)'), "'>'", text('COALESCE(toWid, 0)'))}, 0, COUNT(*) FROM ledger_entry ` +
      'GROUP BY COALESCE(fromWid, 0), COALESCE(toWid, 0)',
    `${insert} SELECT 'stock', CASE WHEN LENGTH(s) > ${MAX_SCOPE} THEN '*' ELSE s END, 0, COUNT(*) ` +
      `FROM (SELECT ${wids} AS s FROM stock_level GROUP BY partNo) AS sets GROUP BY CASE WHEN LENGTH(s) > ${MAX_SCOPE} THEN '*' ELSE s END`,
  ];
}
