import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Item } from '../catalog/catalog.entities.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { caseKey } from '../database/case-key.js';
import { columnList, columnValue, rows, sumTenThousandths, toEntity } from '../database/statements.js';
import { readStoredDecimal, storedTenThousandths } from '../quantity.js';
import { TransactionRunner } from '../database/transactions.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { Lot, StockLevel } from './inventory.entities.js';
import { countNewLevel } from './list-counts.js';
import type { LotFilter } from './pick.js';
import { letOthersRun } from '../database/event-loop.js';
import { BatchTooLarge, type LotBudget } from './lot-budget.js';
import type { LevelFigures } from './stock-changes.js';

/*
 * The lock order. Every writer of an item's stock takes its locks in this one
 * order (Saleor's select_for_update().order_by("pk")), so writers never
 * oversell and seldom deadlock one another:
 *
 *   1. the item row (ItemLocksRepository), first: locked by Receive, Count,
 *      Expect, a Batch and the creator of a stock_level row (createLevel);
 *      held in share mode (`holdItem`) by Allocate, Issue, Move, Hold and
 *      Release: their inserts (an allocation, the part of a lot split off)
 *      check the foreign key to it with a shared lock, which, taken after the
 *      stock_level row, waits for a Receive that holds the item and waits for
 *      that row: a deadlock.
 *   2. a stock_level row being created.
 *   3. the item's stock_level rows, ascending warehouse; their figures, read
 *      under this lock, decide what may be taken: `available` (inStock − onHold
 *      − committed − packed) for an Allocate, a plain Issue, a Move out, a Hold.
 *   4. the documents: the allocation or expectation an operation names, by id
 *      (one per operation); its writers hold its item's stock_level row in its
 *      warehouse first, so they queue on that row.
 *   5. the lots, oldest first (received, then recNo): Issue, Move, Hold, Count.
 *   6. just before the commit, the counts gathered (database/counters.ts):
 *      the stock_count rows of new stock_level rows (addStockRow) in scope
 *      order, 0 (any warehouse) first; then the list_count rows of the lots, ledger rows, stock sets and
 *      documents written (countLedgerRows, countNewLevel, countNewDocument), in key order.
 *
 *   Receive  item, reading the item's total in the same statement → its stock_level row [→ the expectation]
 *   Count    item → its stock_level row → the sum of its lots, then the lots it takes (not held, then held)
 *   Batch    every item named, ascending partNo → their stock_level rows in the warehouses named, ascending (partNo, wID) → each operation
 *   Issue    item (share) → its stock_level row [→ the allocation] → lots, read in chunks as far as needed (Hold and Release the same)
 *   Move     item (share; locked when the destination row is new) [→ new destination row] → stock_level rows ascending → lots
 *   Allocate item (share) → its stock_level row (no row: nothing available)
 *   Pack, Cancel, expiry of an allocation, Ship, Cancel of an expectation: its stock_level row → the document, read again under the lock
 *   Expect   item → its stock_level row (created if missing)
 *
 * Receives (the only operation that raises an item's total) run one at a time
 * per item, so the total they read is not raised concurrently; every writer of
 * an item's lots or documents in a warehouse holds that stock_level row first.
 */

/** The figures of a stock_level row `s` as a locking read selects them (read back by levelFigures). */
const LEVEL_FIGURES = 'inStock AS levelInStock, onHold AS levelOnHold, committed AS levelCommitted, packed AS levelPacked, onOrder AS levelOnOrder, aSN AS levelASN';

/** How many lots an operation wants: enough to hold `units` (all that match without), and at most what its batch may still touch. */
export interface LotWant {
  /** At most this many lots (a Count that changes nothing reads the oldest one only). */
  count?: number;
  /** Stop once the lots read hold this many units (an Issue, a Move, a Hold or Release with `units`); undefined: every matching lot. */
  units?: number;
  /** In a batch: the lots it may still touch. Reading more than that many refuses the batch (BatchTooLarge) before any more is read. */
  budget?: LotBudget | null;
}

/** The first read of an operation's lots takes this many; each next read four times as many, up to LOT_CHUNK_MAX. */
const LOT_CHUNK_FIRST = 16;
const LOT_CHUNK_MAX = 1_000;

/**
 * The locking reads of inventory's rows, in the order above, each in the
 * transaction of its context (`ctx.manager`); the item rows through catalog's
 * ItemLocksRepository, but Receive's lock of the item with its stock.
 */
@Injectable()
export class StockLocksRepository {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly items: ItemLocksRepository,
  ) {}

  /**
   * Receive's first statement: the item named by `itemID` (null: none), locked; its units in stock across
   * every warehouse (ten-thousandths), read once the lock is held (Receives of an item run one at a time
   * behind it, so the total is not raised meanwhile); its stock_level row in warehouse `wid`, locked too
   * (the outer join reads the item first, so the lock order holds; null when the row is missing).
   */
  async lockItemWithTotal(ctx: TransactionContext, itemID: string, wid: number): Promise<{ item: Item; total: bigint; level: LevelFigures | null } | null> {
    const m = ctx.manager;
    const [row] = await rows(
      m,
      `SELECT ${columnList(m, Item, 'i')}, (SELECT SUM(s.inStock) FROM stock_level s WHERE s.partNo = i.partNo) AS total, w.inStock AS levelInStock, w.onHold AS levelOnHold,` +
        ' w.committed AS levelCommitted, w.packed AS levelPacked, w.onOrder AS levelOnOrder, w.aSN AS levelASN' +
        ` FROM item i LEFT JOIN stock_level w ON w.partNo = i.partNo AND w.wID = ? WHERE i.shortIdKey = ?${this.tx.lockClause}`,
      [wid, caseKey(itemID)],
    );
    if (!row) return null;
    const total = row.total as string | number | null;
    return { item: toEntity(m, Item, row), total: total === null ? 0n : storedTenThousandths(total), level: row.levelInStock === null || row.levelInStock === undefined ? null : levelFigures(row) };
  }

  /**
   * Step 1 of the lock order for Allocate, Issue, Move, Hold and Release: the item row in share mode, or locked when the stock_level
   * row of `create` is missing (createLevel locks it then; two writers holding it shared would wait for each other). Nothing on SQLite.
   */
  async holdItem(ctx: TransactionContext, partNo: number, create?: number): Promise<void> {
    if (!this.tx.isMysql) return;
    const missing = create !== undefined && !(await ctx.manager.existsBy(StockLevel, { partNo, wID: create }));
    await (missing ? this.items.lockItemRow(ctx, partNo) : this.items.shareItemRow(ctx, partNo));
  }

  /** The item's units in stock across every warehouse, exactly (as ten-thousandths: stored data may pass the input bound). */
  async itemTotal(ctx: TransactionContext, partNo: number): Promise<bigint> {
    const row = await ctx.manager
      .getRepository(StockLevel)
      .createQueryBuilder('s')
      .select('SUM(s.inStock)', 'total')
      .where('s.partNo = :partNo', { partNo })
      .getRawOne<{ total: string | number | null }>();
    return row?.total === null || row?.total === undefined ? 0n : storedTenThousandths(row.total);
  }

  /**
   * Locks the item's stock_level rows for these warehouses, creating the one for
   * `create` if it is missing (inside the transaction, so a failed move leaves no
   * empty row). Returns them in the order asked, null if absent.
   */
  async lockLevels(ctx: TransactionContext, partNo: number, wids: number[], create?: number): Promise<Array<StockLevel | null>> {
    const m = ctx.manager;
    if (create !== undefined && wids.length === 1) {
      // Receive (one warehouse) locks its row straight away when it exists; when it is
      // missing no lock is held yet, so the item can be locked first to create it.
      const level = await this.lockLevelRow(m, partNo, create);
      if (level) return [level];
      await this.createLevel(ctx, partNo, create);
    } else if (create !== undefined && !(await m.existsBy(StockLevel, { partNo, wID: create }))) {
      await this.createLevel(ctx, partNo, create);
    }
    const found = new Map<number, StockLevel>();
    for (const wID of [...new Set(wids)].sort((a, b) => a - b)) {
      const level = await this.lockLevelRow(m, partNo, wID);
      if (level) found.set(wID, level);
    }
    return wids.map((w) => found.get(w) ?? null);
  }

  /**
   * In-stock lots of the item in the warehouse that pass the filter, oldest
   * first (received, then recNo), locked, read in chunks that seek on from the
   * last lot read (an index range of IX_lot_pick: partNo, wID, active,
   * received, then the key), and only as many as `want` needs: an Issue of 3
   * units reads the first 16 lots, not the item's 100,000, and a batch over its
   * lot limit stops reading at the limit. The caller holds the stock_level
   * row, which every writer of these lots takes first (the lock order above),
   * so the chunks read one consistent set. Between chunks the event loop may
   * turn (event-loop.ts).
   */
  async lockLots(ctx: TransactionContext, partNo: number, wid: number, f: LotFilter, want: LotWant = {}): Promise<Lot[]> {
    const m = ctx.manager;
    const [matching, params] = lotConditions(m, f);
    const select = `SELECT ${columnList(m, Lot, 'l')} FROM lot l WHERE l.partNo = ? AND l.wID = ? AND ${matching}`;
    const lots: Lot[] = [];
    let missing = want.units === undefined ? null : storedTenThousandths(want.units);
    let size = LOT_CHUNK_FIRST;
    /** The last row read, as the database gave it: the next chunk seeks on from its stored `received`, not a value made from it. */
    let last: Record<string, unknown> | undefined;
    for (;;) {
      const [seek, seekParams] = last ? [' AND (l.received > ? OR (l.received = ? AND l.recNo > ?))', [last.received, last.received, last.recNo]] : ['', []];
      const found = await rows(m, `${select}${seek} ORDER BY l.received, l.recNo LIMIT ?${this.tx.lockClause}`, [partNo, wid, ...params, ...seekParams, size]);
      if (last && found.length && found[0].recNo === last.recNo) throw new Error(`lockLots: no progress after lot ${String(last.recNo)}`);
      last = found.at(-1);
      for (const row of found) {
        // Lots past the one that completes `units` are not the operation's (a chunk may read a few more).
        if ((missing !== null && missing <= 0n) || lots.length === want.count) break;
        const lot = toEntity(m, Lot, row);
        lots.push(lot);
        if (missing !== null) missing -= storedTenThousandths(lot.units);
      }
      if (want.budget && lots.length > want.budget.left) throw new BatchTooLarge(want.budget.limit);
      await letOthersRun();
      if (found.length < size || (missing !== null && missing <= 0n) || lots.length === want.count) return lots;
      size = Math.min(size * 4, LOT_CHUNK_MAX);
    }
  }

  /**
   * The units of the in-stock lots of the item in the warehouse that pass the
   * filter, exactly (ten-thousandths), in one statement that reads no lot into
   * the service: a Count's units on hand. The caller holds the stock_level row,
   * which every writer of these lots takes first, so the sum stays true until
   * the transaction ends.
   */
  async lotUnits(ctx: TransactionContext, partNo: number, wid: number, f: LotFilter): Promise<bigint> {
    const m = ctx.manager;
    const [matching, params] = lotConditions(m, f);
    const [row] = await rows(m, `SELECT ${sumTenThousandths(m, 'l.units')} AS units FROM lot l WHERE l.partNo = ? AND l.wID = ? AND ${matching}`, [partNo, wid, ...params]);
    return BigInt(String(row?.units ?? 0));
  }

  /**
   * Issue's and Hold's locks: the item's stock_level row for the warehouse,
   * then the in-stock lots there that pass the filter, oldest first, as many
   * as `want` needs (`lockLots`). `level` is the row's figures as locked, null
   * when the warehouse has no row for the item, and then there is no lot either.
   */
  async lockLevelAndLots(ctx: TransactionContext, partNo: number, wid: number, f: LotFilter, want: LotWant = {}): Promise<{ level: LevelFigures | null; lots: Lot[] }> {
    const level = await this.lockLevel(ctx, partNo, wid);
    return { level, lots: level ? await this.lockLots(ctx, partNo, wid, f, want) : [] };
  }

  /** The item's stock_level row for the warehouse, locked: its figures, null when there is none (nothing in stock, committed or expected). */
  async lockLevel(ctx: TransactionContext, partNo: number, wid: number): Promise<LevelFigures | null> {
    const [row] = await rows(ctx.manager, `SELECT ${LEVEL_FIGURES} FROM stock_level WHERE partNo = ? AND wID = ?${this.tx.lockClause}`, [partNo, wid]);
    return row ? levelFigures(row) : null;
  }

  /**
   * A batch's locks, taken before its first operation: the items (ascending
   * partNo), then their existing stock_level rows in the warehouses named
   * (ascending partNo, then wID). Every later lock of the batch is one of these
   * again or guarded by one, so two batches naming the same items in any order
   * queue on the first item they share instead of deadlocking.
   */
  async lockItemsAndLevels(ctx: TransactionContext, stock: Array<{ partNo: number; wid: number }>): Promise<void> {
    const partNos = [...new Set(stock.map((s) => s.partNo))].sort((a, b) => a - b);
    const wids = [...new Set(stock.map((s) => s.wid))].sort((a, b) => a - b);
    if (!partNos.length) return;
    await this.items.lockItems(ctx, partNos);
    await this.tx
      .forUpdate(
        ctx.manager
          .getRepository(StockLevel)
          .createQueryBuilder('s')
          .select(['s.partNo', 's.wID'])
          .where('s.partNo IN (:...partNos) AND s.wID IN (:...wids)', { partNos, wids })
          .orderBy('s.partNo', 'ASC')
          .addOrderBy('s.wID', 'ASC'),
      )
      .getMany();
  }

  private lockLevelRow(m: EntityManager, partNo: number, wID: number): Promise<StockLevel | null> {
    return this.tx.forUpdate(m.getRepository(StockLevel).createQueryBuilder('s').where('s.partNo = :partNo AND s.wID = :wID', { partNo, wID })).getOne();
  }

  /**
   * Locks the item, then creates the row (unless a transaction that held the lock
   * before did) and counts it: creators of an item's rows run one at a time, so
   * each new row is counted once in stock_count (per warehouse, and in scope 0
   * when it is the item's first).
   */
  private async createLevel(ctx: TransactionContext, partNo: number, wID: number): Promise<void> {
    const m = ctx.manager;
    await this.items.lockItemRow(ctx, partNo);
    const existing = await m.find(StockLevel, { where: { partNo }, select: { wID: true } });
    if (existing.some((l) => l.wID === wID)) return;
    await m.insert(StockLevel, { partNo, wID, inStock: 0, onHold: 0, committed: 0, packed: 0, onOrder: 0, aSN: 0, modified: new Date() });
    ctx.counts.addStockRow(wID, !existing.length);
    countNewLevel(ctx, existing.map((l) => l.wID), wID);
  }
}

/** The LEVEL_FIGURES columns of a locking read. */
function levelFigures(row: Record<string, unknown>): LevelFigures {
  const read = (column: string) => readStoredDecimal(row[column] as string | number);
  return {
    inStock: read('levelInStock'),
    onHold: read('levelOnHold'),
    committed: read('levelCommitted'),
    packed: read('levelPacked'),
    onOrder: read('levelOnOrder'),
    aSN: read('levelASN'),
  };
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
