import type { Dialect } from './inventory-schema.js';

/**
 * An index for every order a list allows: the list's scope filter first (a
 * warehouse, whether an item is active), then the sort column, then the
 * primary key, the tiebreak; so that a page, from its first row or from a
 * cursor, is a walk of one index range with no sort. A list over several
 * warehouses walks an index of (sort column, primary key, wID) instead,
 * reading the warehouse from the index entry. Each index names the list it serves.
 *
 * - `lot.shortIdKey`: the item's key, copied into its lots (a shortID never
 *   changes), so that lots sort by shortID on an index of their own table
 *   rather than a sort of every lot joined to its item.
 * - `stock_level.available` (inStock − onHold), a stored generated column, so
 *   that one warehouse's stock levels sort by it on an index.
 */
export interface SortIndex {
  name: string;
  table: string;
  columns: string[];
  serves: string;
}

const lots = (column: string, sort: string): SortIndex[] => [
  { name: `IX_lot_${column}_recNo_wID`, table: 'lot', columns: [column, 'recNo', 'wID'], serves: `GET /Inventory sort=${sort}` },
  { name: `IX_lot_wID_${column}_recNo`, table: 'lot', columns: ['wID', column, 'recNo'], serves: `GET /Inventory/<wid> sort=${sort}` },
];

export const SORT_INDEXES: SortIndex[] = [
  { name: 'IX_item_active_partNo', table: 'item', columns: ['discontinued', 'partNo'], serves: 'GET /Item sort=partNo' },
  { name: 'IX_item_category_partNo', table: 'item', columns: ['category', 'partNo'], serves: 'GET /Item/All sort=category' },
  { name: 'IX_lot_wID_recNo', table: 'lot', columns: ['wID', 'recNo'], serves: 'GET /Inventory/<wid> sort=recNo' },
  ...lots('shortIdKey', 'shortID'),
  ...lots('partNo', 'partNo'),
  ...lots('spot', 'spot'),
  ...lots('units', 'units'),
  ...lots('modified', 'modified, and modifiedSince'),
  { name: 'IX_ledger_created_id_wids', table: 'ledger_entry', columns: ['created', 'id', 'fromWid', 'toWid'], serves: 'GET /Inventory/Transactions sort=created, and modifiedSince' },
  { name: 'IX_ledger_partNo_id_wids', table: 'ledger_entry', columns: ['partNo', 'id', 'fromWid', 'toWid'], serves: 'GET /Inventory/Transactions sort=partNo, itemID; the ledger check per item' },
  { name: 'IX_stock_level_wID_inStock', table: 'stock_level', columns: ['wID', 'inStock', 'partNo'], serves: 'GET /Inventory/StockLevels/<wid> sort=inStock' },
  { name: 'IX_stock_level_wID_onHold', table: 'stock_level', columns: ['wID', 'onHold', 'partNo'], serves: 'GET /Inventory/StockLevels/<wid> sort=onHold' },
  { name: 'IX_stock_level_wID_available', table: 'stock_level', columns: ['wID', 'available', 'partNo'], serves: 'GET /Inventory/StockLevels/<wid> sort=available' },
];

/** Indexes the ones above replace: the same leading column, without the tiebreak and scope. */
const REPLACED = [
  { name: 'IX_lot_modified', table: 'lot', columns: ['modified'] },
  { name: 'IX_ledger_created', table: 'ledger_entry', columns: ['created'] },
  { name: 'IX_ledger_partNo', table: 'ledger_entry', columns: ['partNo'] },
];

export function sortIndexesUp(d: Dialect): string[] {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const key = d === 'mysql' ? ' CHARACTER SET utf8mb4 COLLATE utf8mb4_bin' : '';
  return [
    `ALTER TABLE ${q('lot')} ADD COLUMN ${q('shortIdKey')} varchar(64)${key} NOT NULL DEFAULT ''`,
    `UPDATE ${q('lot')} SET ${q('shortIdKey')} = (SELECT ${q('shortIdKey')} FROM ${q('item')} WHERE ${q('item')}.${q('partNo')} = ${q('lot')}.${q('partNo')})`,
    d === 'mysql'
      ? 'ALTER TABLE `stock_level` ADD COLUMN `available` decimal(19,4) GENERATED ALWAYS AS (`inStock` - `onHold`) STORED'
      : // SQLite adds only VIRTUAL generated columns to an existing table; an index on one is stored all the same.
        'ALTER TABLE "stock_level" ADD COLUMN "available" decimal(19,4) GENERATED ALWAYS AS ("inStock" - "onHold") VIRTUAL',
    ...SORT_INDEXES.map((ix) => createIndex(d, ix)),
    ...REPLACED.map((ix) => dropIndex(d, ix)),
  ];
}

export function sortIndexesDown(d: Dialect): string[] {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  return [
    ...REPLACED.map((ix) => createIndex(d, ix)),
    ...SORT_INDEXES.map((ix) => dropIndex(d, ix)),
    `ALTER TABLE ${q('stock_level')} DROP COLUMN ${q('available')}`,
    `ALTER TABLE ${q('lot')} DROP COLUMN ${q('shortIdKey')}`,
  ];
}

function createIndex(d: Dialect, ix: { name: string; table: string; columns: string[] }): string {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  return `CREATE INDEX ${q(ix.name)} ON ${q(ix.table)} (${ix.columns.map(q).join(', ')})`;
}

function dropIndex(d: Dialect, ix: { name: string; table: string }): string {
  return d === 'mysql' ? `DROP INDEX \`${ix.name}\` ON \`${ix.table}\`` : `DROP INDEX "${ix.name}"`;
}
