import type { Dialect } from './inventory-schema.js';

/**
 * Page totals that follow the page, not the data:
 * - `stock_count` keeps how many items have a stock_level row, per warehouse
 *   (scope = wID) and in any warehouse (scope = 0), maintained by the same
 *   transaction that creates a stock_level row; StockLevels reads its
 *   totalCount from it instead of counting every item.
 * - The newest-first lot index carries recNo and wID, so a lot page's keys are
 *   read from the index alone (deep pages skip index entries, not rows) and the
 *   warehouse filter needs no row look-up.
 */
export function listCountsUp(d: Dialect): string[] {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const table = d === 'mysql' ? ' ENGINE=InnoDB' : '';
  return [
    `CREATE TABLE ${q('stock_count')} (
      ${q('scope')} int NOT NULL PRIMARY KEY,
      ${q('items')} int NOT NULL)${table}`,
    `INSERT INTO ${q('stock_count')} (${q('scope')}, ${q('items')}) SELECT 0, COUNT(DISTINCT ${q('partNo')}) FROM ${q('stock_level')}`,
    `INSERT INTO ${q('stock_count')} (${q('scope')}, ${q('items')}) SELECT ${q('wID')}, COUNT(*) FROM ${q('stock_level')} GROUP BY ${q('wID')}`,
    dropIndex(d, 'IX_lot_received', 'lot'),
    // GET /Inventory newest first over the caller's warehouses: keys, order and filter from the index alone.
    `CREATE INDEX ${q('IX_lot_received_recNo_wID')} ON ${q('lot')} (${q('received')}, ${q('recNo')}, ${q('wID')})`,
  ];
}

export function listCountsDown(d: Dialect): string[] {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  return [
    dropIndex(d, 'IX_lot_received_recNo_wID', 'lot'),
    `CREATE INDEX ${q('IX_lot_received')} ON ${q('lot')} (${q('received')})`,
    `DROP TABLE ${q('stock_count')}`,
  ];
}

function dropIndex(d: Dialect, name: string, table: string): string {
  return d === 'mysql' ? `DROP INDEX \`${name}\` ON \`${table}\`` : `DROP INDEX "${name}"`;
}
