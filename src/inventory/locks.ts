import type { EntityManager } from 'typeorm';
import { Item } from '../catalog/catalog.entities.js';
import { caseKey } from '../database/case-key.js';
import { columnList, columnValue, rows, toEntity } from '../database/statements.js';
import { readStoredDecimal, storedTenThousandths } from '../quantity.js';
import type { TransactionRunner } from '../database/transactions.js';
import { countStockRow } from '../database/counters.js';
import { Lot, StockLevel } from './inventory.entities.js';
import { countNewLevel } from './list-counts.js';
import type { LotFilter } from './pick.js';
import { letOthersRun } from '../database/event-loop.js';

/*
 * The lock order. Every writer of an item's stock takes its locks in this one
 * order (Saleor's select_for_update().order_by("pk")), so writers never
 * deadlock one another and never oversell (DECISIONS "Inventory"):
 *
 *   1. the item row: Receive, always first; any operation about to create a
 *      missing stock_level row (createLevel).
 *   2. a stock_level row being created.
 *   3. the item's stock_level rows, in ascending warehouse order.
 *   4. the lots, oldest first (received, then recNo): Issue and Move.
 *   5. just before the commit, everything the transaction counted, gathered
 *      (database/counters.ts): the stock_count rows of new stock_level rows
 *      (countStockRow) in scope order, 0 (any warehouse) first; then the
 *      list_count rows of the lots, ledger rows and stock sets written
 *      (countLedgerRows from writeLedger, countNewLevel), in key order.
 *
 *   Receive  item, reading the item's total in the same statement → its stock_level row
 *   Count    item → its stock_level row → lots (held included)
 *   Batch    every item named, ascending partNo → their stock_level rows in
 *            the warehouses named, ascending (partNo, wID) → then each
 *            operation in turn, whose own locks are then held already or
 *            (lots, new rows) are guarded by them
 *   Issue    its stock_level row → lots, in one statement (Hold and Release the same)
 *   Move     [item → new destination row →] stock_level rows ascending → lots
 *
 * Receives (the only operation that raises an item's total) run one at a time
 * per item, so the total they read is not raised concurrently; every writer of
 * an item's lots in a warehouse holds that stock_level row first.
 */

/** The item named by `itemID` (case-folded shortID), locked; null when there is none. */
export function lockItem(tx: TransactionRunner, m: EntityManager, itemID: string): Promise<Item | null> {
  return tx.forUpdate(m.getRepository(Item).createQueryBuilder('item').where('item.shortIdKey = :key', { key: caseKey(itemID) })).getOne();
}

/** A stock_level row's figures as read under its lock. */
export interface LevelFigures {
  inStock: number;
  onHold: number;
}

/**
 * Receive's first statement: the item named by `itemID`, locked, its units
 * in stock across every warehouse (ten-thousandths), read once the lock is
 * held, and its stock_level row in warehouse `wid`, locked too (the outer
 * join reads the item first, so the lock order holds; null when the row is
 * missing); null when there is no such item. Receives of an item run one at a
 * time behind its lock, so the total is not raised meanwhile.
 */
export async function lockItemWithTotal(
  tx: TransactionRunner,
  m: EntityManager,
  itemID: string,
  wid: number,
): Promise<{ item: Item; total: bigint; level: LevelFigures | null } | null> {
  const [row] = await rows(
    m,
    `SELECT ${columnList(m, Item, 'i')}, (SELECT SUM(s.inStock) FROM stock_level s WHERE s.partNo = i.partNo) AS total, w.inStock AS levelInStock, w.onHold AS levelOnHold` +
      ` FROM item i LEFT JOIN stock_level w ON w.partNo = i.partNo AND w.wID = ? WHERE i.shortIdKey = ?${tx.lockClause}`,
    [wid, caseKey(itemID)],
  );
  if (!row) return null;
  const total = row.total as string | number | null;
  return { item: toEntity(m, Item, row), total: total === null ? 0n : storedTenThousandths(total), level: levelFigures(row) };
}

/** The `levelInStock`/`levelOnHold` columns of a locking read, null when its stock_level row was missing. */
function levelFigures(row: Record<string, unknown>): LevelFigures | null {
  const inStock = row.levelInStock as string | number | null;
  const onHold = row.levelOnHold as string | number | null;
  return inStock === null || onHold === null ? null : { inStock: readStoredDecimal(inStock), onHold: readStoredDecimal(onHold) };
}

/** The item's units in stock across every warehouse, exactly (as ten-thousandths: stored data may pass the input bound). */
export async function itemTotal(m: EntityManager, partNo: number): Promise<bigint> {
  const row = await m.getRepository(StockLevel).createQueryBuilder('s').select('SUM(s.inStock)', 'total').where('s.partNo = :partNo', { partNo }).getRawOne<{ total: string | number | null }>();
  return row?.total === null || row?.total === undefined ? 0n : storedTenThousandths(row.total);
}

/**
 * Locks the item's stock_level rows for these warehouses, creating the one for
 * `create` if it is missing (inside the transaction, so a failed move leaves no
 * empty row). Returns them in the order asked, null if absent.
 */
export async function lockLevels(tx: TransactionRunner, m: EntityManager, partNo: number, wids: number[], create?: number): Promise<Array<StockLevel | null>> {
  if (create !== undefined && wids.length === 1) {
    // Receive (one warehouse) locks its row straight away when it exists; when it is
    // missing no lock is held yet, so the item can be locked first to create it.
    const level = await lockLevel(tx, m, partNo, create);
    if (level) return [level];
    await createLevel(tx, m, partNo, create);
  } else if (create !== undefined && !(await m.existsBy(StockLevel, { partNo, wID: create }))) {
    await createLevel(tx, m, partNo, create);
  }
  const found = new Map<number, StockLevel>();
  for (const wID of [...new Set(wids)].sort((a, b) => a - b)) {
    const level = await lockLevel(tx, m, partNo, wID);
    if (level) found.set(wID, level);
  }
  return wids.map((w) => found.get(w) ?? null);
}

/** In-stock lots of the item in the warehouse that pass the filter, oldest first, locked. */
export async function lockLots(tx: TransactionRunner, m: EntityManager, partNo: number, wid: number, f: LotFilter): Promise<Lot[]> {
  const [matching, params] = lotConditions(m, f);
  const found = await rows(m, `SELECT ${columnList(m, Lot, 'l')} FROM lot l WHERE l.partNo = ? AND l.wID = ? AND ${matching} ORDER BY l.received, l.recNo${tx.lockClause}`, [partNo, wid, ...params]);
  return found.map((row) => toEntity(m, Lot, row));
}

/**
 * Issue's and Hold's locks in one statement: the item's stock_level row for
 * the warehouse, then (the outer join reads it first, so the lock order
 * holds) the in-stock lots there that pass the filter, oldest first. `level`
 * is the row's figures as locked, null when the warehouse has no row for the
 * item, and then there is no lot either.
 */
export async function lockLevelAndLots(
  tx: TransactionRunner,
  m: EntityManager,
  partNo: number,
  wid: number,
  f: LotFilter,
): Promise<{ level: LevelFigures | null; lots: Lot[] }> {
  const [matching, params] = lotConditions(m, f);
  const found = await rows(
    m,
    `SELECT s.inStock AS levelInStock, s.onHold AS levelOnHold, ${columnList(m, Lot, 'l')} FROM stock_level s LEFT JOIN lot l ON l.partNo = s.partNo AND l.wID = s.wID AND ${matching} WHERE s.partNo = ? AND s.wID = ?${tx.lockClause}`,
    [...params, partNo, wid],
  );
  // Ordered here: an ORDER BY on the joined lots would have MariaDB sort them in a temporary table.
  // The lots are read, and locked, in the order of their index (partNo, wID, active, received, recNo) all the same.
  const lots: Lot[] = [];
  for (const [i, row] of found.entries()) {
    // Thousands of rows: let the event loop turn now and then (event-loop.ts).
    if (i % 500 === 499) await letOthersRun(m);
    if (row.recNo !== null) lots.push(toEntity(m, Lot, row));
  }
  lots.sort((a, b) => a.received.getTime() - b.received.getTime() || a.recNo - b.recNo);
  return { level: found.length > 0 ? levelFigures(found[0]) : null, lots };
}

/** A lot filter as the conditions on lot `l`, in-stock lots only, with their parameters. */
function lotConditions(m: EntityManager, f: LotFilter): [string, unknown[]] {
  const conditions = ['l.active = 1'];
  const params: unknown[] = [];
  const equal = (sql: string, value: unknown) => {
    conditions.push(sql);
    params.push(value);
  };
  if (!f.includeHeld) conditions.push('l.hold = 0');
  if (f.onlyHeld) conditions.push('l.hold = 1');
  if (f.recNo !== undefined) equal('l.recNo = ?', f.recNo);
  if (f.spot !== undefined) equal('l.spot = ?', f.spot);
  if (f.serial !== undefined) equal('l.serial = ?', f.serial);
  if (f.serial2 !== undefined) equal('l.serial2 = ?', f.serial2);
  if (f.rFIDTag !== undefined) equal('l.rFIDTag = ?', f.rFIDTag);
  if (f.notAtSpot !== undefined) equal('l.spot <> ?', f.notAtSpot);
  if (f.received) {
    equal('l.received >= ?', columnValue(m, Lot, 'received', f.received.from));
    equal('l.received < ?', columnValue(m, Lot, 'received', f.received.before));
  }
  return [conditions.join(' AND '), params];
}

function lockLevel(tx: TransactionRunner, m: EntityManager, partNo: number, wID: number): Promise<StockLevel | null> {
  return tx.forUpdate(m.getRepository(StockLevel).createQueryBuilder('s').where('s.partNo = :partNo AND s.wID = :wID', { partNo, wID })).getOne();
}

/**
 * Locks the item, then creates the row (unless a transaction that held the lock
 * before did) and counts it: creators of an item's rows run one at a time, so
 * each new row is counted once in stock_count (per warehouse, and in scope 0
 * when it is the item's first).
 */
async function createLevel(tx: TransactionRunner, m: EntityManager, partNo: number, wID: number): Promise<void> {
  await tx.forUpdate(m.getRepository(Item).createQueryBuilder('item').select('item.partNo').where('item.partNo = :partNo', { partNo })).getOne();
  const existing = await m.find(StockLevel, { where: { partNo }, select: { wID: true } });
  if (existing.some((l) => l.wID === wID)) return;
  await m.insert(StockLevel, { partNo, wID, inStock: 0, onHold: 0, modified: new Date() });
  await countStockRow(m, wID, !existing.length);
  await countNewLevel(m, existing.map((l) => l.wID), wID);
}

/**
 * A batch's locks, taken before its first operation: the items (ascending
 * partNo), then their existing stock_level rows in the warehouses named
 * (ascending partNo, then wID). Every later lock of the batch is one of these
 * again or guarded by one, so two batches naming the same items in any order
 * queue on the first item they share instead of deadlocking.
 */
export async function lockItemsAndLevels(tx: TransactionRunner, m: EntityManager, stock: Array<{ partNo: number; wid: number }>): Promise<void> {
  const partNos = [...new Set(stock.map((s) => s.partNo))].sort((a, b) => a - b);
  const wids = [...new Set(stock.map((s) => s.wid))].sort((a, b) => a - b);
  if (!partNos.length) return;
  await tx.forUpdate(m.getRepository(Item).createQueryBuilder('item').select('item.partNo').where('item.partNo IN (:...partNos)', { partNos }).orderBy('item.partNo', 'ASC')).getMany();
  await tx
    .forUpdate(
      m.getRepository(StockLevel).createQueryBuilder('s').select(['s.partNo', 's.wID']).where('s.partNo IN (:...partNos) AND s.wID IN (:...wids)', { partNos, wids }).orderBy('s.partNo', 'ASC').addOrderBy('s.wID', 'ASC'),
    )
    .getMany();
}
