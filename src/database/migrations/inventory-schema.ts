/**
 * The inventory tables, written once for both dialects: column types differ
 * only where MySQL and SQLite differ (auto-increment keys, datetime precision,
 * booleans, key collation). Each index names the query it serves.
 */
export type Dialect = 'mysql' | 'sqlite';

export function inventorySchema(d: Dialect): string[] {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const id = d === 'mysql' ? 'int NOT NULL AUTO_INCREMENT PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
  const dt = d === 'mysql' ? 'datetime(3)' : 'datetime';
  const bool = d === 'mysql' ? 'tinyint(1)' : 'boolean';
  const bin = d === 'mysql' ? ' CHARACTER SET utf8mb4 COLLATE utf8mb4_bin' : '';
  const table = d === 'mysql' ? ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : '';
  // Foreign keys as table constraints: MySQL 8 parses column-level REFERENCES and ignores them.
  const fk = (name: string, col: string, target: string, targetCol: string) =>
    `,\n      CONSTRAINT ${q(name)} FOREIGN KEY (${q(col)}) REFERENCES ${q(target)} (${q(targetCol)})`;
  const ix = (name: string, t: string, cols: string[], unique = false) =>
    `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${q(name)} ON ${q(t)} (${cols.map(q).join(', ')})`;
  return [
    `CREATE TABLE ${q('lot')} (
      ${q('recNo')} ${id},
      ${q('partNo')} int NOT NULL,
      ${q('wID')} int NOT NULL,
      ${q('spot')} varchar(64) NOT NULL DEFAULT '',
      ${q('units')} decimal(18,4) NOT NULL,
      ${q('received')} ${dt} NOT NULL,
      ${q('shipped')} ${dt} NULL,
      ${q('serial')} varchar(64) NOT NULL DEFAULT '',
      ${q('serial2')} varchar(64) NOT NULL DEFAULT '',
      ${q('rFIDTag')} varchar(64) NOT NULL DEFAULT '',
      ${q('remark')} varchar(255) NOT NULL DEFAULT '',
      ${q('hold')} ${bool} NOT NULL DEFAULT 0,
      ${q('jobID')} int NOT NULL DEFAULT 0,
      ${q('jobName')} varchar(100) NOT NULL DEFAULT '',
      ${q('associate')} varchar(100) NOT NULL DEFAULT '',
      ${q('active')} ${bool} NOT NULL DEFAULT 1,
      ${q('netWeight')} decimal(18,4) NULL,
      ${q('grossWeight')} decimal(18,4) NULL,
      ${q('price')} decimal(18,4) NULL,
      ${q('expires')} ${dt} NULL,
      ${q('supplier')} int NULL,
      ${q('poLine')} int NULL,
      ${q('modified')} ${dt} NOT NULL${fk('FK_lot_item', 'partNo', 'item', 'partNo')}${fk('FK_lot_warehouse', 'wID', 'warehouse', 'wID')})${table}`,
    // Issue and Move: an item's in-stock lots in a warehouse, oldest first, locked.
    ix('IX_lot_pick', 'lot', ['partNo', 'wID', 'active', 'received']),
    // GET /Inventory (newest first) for all the caller's warehouses (IX_lot_received: replaced by
    // IX_lot_received_recNo_wID in migration ListCounts, see list-counts.ts), and for one.
    ix('IX_lot_received', 'lot', ['received']),
    ix('IX_lot_wID_received', 'lot', ['wID', 'received']),
    // modifiedSince on the lot lists.
    ix('IX_lot_modified', 'lot', ['modified']),

    `CREATE TABLE ${q('ledger_entry')} (
      ${q('id')} ${id},
      ${q('operationId')} varchar(36)${bin} NOT NULL,
      ${q('operation')} varchar(16) NOT NULL,
      ${q('partNo')} int NOT NULL,
      ${q('recNo')} int NOT NULL,
      ${q('fromRecNo')} int NULL,
      ${q('fromWid')} int NULL,
      ${q('fromSpot')} varchar(64) NULL,
      ${q('toWid')} int NULL,
      ${q('toSpot')} varchar(64) NULL,
      ${q('units')} decimal(18,4) NOT NULL,
      ${q('reasonCode')} int NULL,
      ${q('reference')} varchar(100) NOT NULL DEFAULT '',
      ${q('remark')} varchar(255) NOT NULL DEFAULT '',
      ${q('extra')} text NULL,
      ${q('clientId')} varchar(64)${bin} NOT NULL,
      ${q('idempotencyKey')} varchar(255) NULL,
      ${q('created')} ${dt} NOT NULL)${table}`,
    // GET /Inventory/Transactions with modifiedSince; the invariant check per item.
    ix('IX_ledger_created', 'ledger_entry', ['created']),
    ix('IX_ledger_partNo', 'ledger_entry', ['partNo']),

    `CREATE TABLE ${q('stock_level')} (
      ${q('partNo')} int NOT NULL,
      ${q('wID')} int NOT NULL,
      ${q('inStock')} decimal(18,4) NOT NULL DEFAULT 0,
      ${q('onHold')} decimal(18,4) NOT NULL DEFAULT 0,
      ${q('modified')} ${dt} NOT NULL,
      PRIMARY KEY (${q('partNo')}, ${q('wID')})${fk('FK_stock_level_item', 'partNo', 'item', 'partNo')}${fk('FK_stock_level_warehouse', 'wID', 'warehouse', 'wID')})${table}`,
    // GET /Inventory/StockLevels/<wid>, by partNo.
    ix('IX_stock_level_wID', 'stock_level', ['wID', 'partNo']),

    `CREATE TABLE ${q('idempotency_record')} (
      ${q('clientId')} varchar(64)${bin} NOT NULL,
      ${q('keyHash')} varchar(64)${bin} NOT NULL,
      ${q('requestHash')} varchar(64) NOT NULL,
      ${q('state')} varchar(16) NOT NULL,
      ${q('status')} int NULL,
      ${q('body')} text NULL,
      ${q('created')} ${dt} NOT NULL,
      PRIMARY KEY (${q('clientId')}, ${q('keyHash')}))${table}`,
    // The purge of records older than 24 hours.
    ix('IX_idempotency_created', 'idempotency_record', ['created']),
  ];
}

export const INVENTORY_TABLES = ['idempotency_record', 'stock_level', 'ledger_entry', 'lot'];
