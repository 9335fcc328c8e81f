import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { Item } from '../catalog/catalog.entities.js';
import { addDecimal, DECIMAL_MAX, formatDecimal, storedTenThousandths, subtractDecimal, toTenThousandths, withinDecimalMax } from '../quantity.js';
import { columnValue, execute, insertRows, insertStatement, plusDecimal, type Statement, updateStatement } from '../database/statements.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { letOthersRun } from '../database/event-loop.js';
import { Conflict } from '../errors.js';
import type { CountDto, HoldDto, IssueDto, MoveDto, ReceiveDto } from './inventory.dto.js';
import { LedgerEntry, Lot, StockLevel } from './inventory.entities.js';
import { countLedgerRows } from './list-counts.js';
import type { PickPlan } from './pick.js';

/** DECISIONS "Inventory": an item's stock in one warehouse, and across all of them, stays within DECIMAL_MAX. */
export class StockLimitExceeded extends Conflict {
  constructor(shortId: string, wid: number | null) {
    super(`Stock of ${shortId} ${wid === null ? 'across all warehouses' : `in warehouse ${wid}`} would exceed ${DECIMAL_MAX} units.`, { reason: 'stock_bound', bound: DECIMAL_MAX });
  }
}

/**
 * How many rows one statement writes at most. SQLite refuses a statement with
 * more than 32,766 parameters (a ledger row has 17), and smaller statements
 * keep MySQL's packets small too: an operation over thousands of lots is
 * written in several statements of one transaction.
 */
const ROWS_PER_STATEMENT = 500;

function chunks<T>(values: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += ROWS_PER_STATEMENT) out.push(values.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

/** A lot taken by a plan: the lot it came from, the lot that holds the units now, the units. */
export interface TakenLot {
  from: Lot;
  recNo: number;
  units: number;
}

/**
 * Applies a pick plan to its locked lots. A lot taken whole gets `changes` in
 * place and keeps its recNo; the lot taken in part keeps the rest, and the part
 * becomes a new lot like it (received date, serials, remark, hold) with
 * `changes`. Issue archives (`shipped`, `active` false); Move relocates.
 */
export async function applyPick(ctx: TransactionContext, plan: PickPlan<Lot>, changes: Partial<Lot>, now: Date): Promise<TakenLot[]> {
  const m = ctx.manager;
  const done: TakenLot[] = plan.whole.map((lot) => ({ from: lot, recNo: lot.recNo, units: lot.units }));
  // The lots are locked: their updates go with the commit; only the new lot's insert is needed now, for its recNo.
  if (plan.part) {
    const { lot, units } = plan.part;
    ctx.later(updateStatement(m, Lot, { units: subtractDecimal(lot.units, units), modified: now }, 'recNo', [lot.recNo]));
    const part: Partial<Lot> = { ...lot, ...changes, recNo: undefined, units, modified: now };
    done.push({ from: lot, recNo: await insertRows(m, Lot, [part]), units });
  }
  for (const lots of chunks(plan.whole)) {
    await letOthersRun();
    ctx.later(updateStatement(m, Lot, { ...changes, modified: now }, 'recNo', lots.map((l) => l.recNo)));
  }
  return done;
}

/** Adds to a locked stock_level row; past DECIMAL_MAX → StockLimitExceeded. */
export async function adjustLevel(m: EntityManager, item: Pick<Item, 'shortID'>, level: StockLevel | null, inStock: number, onHold: number, now: Date): Promise<void> {
  if (!level) return;
  if (!withinDecimalMax(storedTenThousandths(level.inStock), inStock)) throw new StockLimitExceeded(item.shortID, level.wID);
  const next = { inStock: addDecimal(level.inStock, inStock), onHold: addDecimal(level.onHold, onHold) };
  await m.update(StockLevel, { partNo: level.partNo, wID: level.wID }, { ...next, modified: now });
}

/**
 * Adds to the item's stock_level row for the warehouse in one statement, the
 * sums done exactly by the database (no read before the write); it locks the
 * row. False when there is no such row. The caller has checked the bound.
 */
export async function addToLevel(m: EntityManager, partNo: number, wid: number, inStock: number, onHold: number, now: Date): Promise<boolean> {
  const { sql, params } = levelAddition(m, partNo, wid, inStock, onHold, now);
  return (await execute(m, sql, params)) > 0;
}

/** `addToLevel` with the commit, for a stock_level row the transaction has locked (it exists). */
export function addToLockedLevel(ctx: TransactionContext, partNo: number, wid: number, inStock: number, onHold: number, now: Date): void {
  ctx.later(levelAddition(ctx.manager, partNo, wid, inStock, onHold, now));
}

function levelAddition(m: EntityManager, partNo: number, wid: number, inStock: number, onHold: number, now: Date): Statement {
  return {
    sql: `UPDATE stock_level SET inStock = ${plusDecimal(m, 'inStock')}, onHold = ${plusDecimal(m, 'onHold')}, modified = ? WHERE partNo = ? AND wID = ?`,
    params: [decimalText(inStock), decimalText(onHold), columnValue(m, StockLevel, 'modified', now), partNo, wid],
  };
}

function decimalText(value: number): string {
  const count = toTenThousandths(value);
  if (count === null) throw new RangeError(`${value} is not a DECIMAL(18,4) value`);
  return formatDecimal(count);
}

export type LedgerRow = Pick<LedgerEntry, 'recNo' | 'fromRecNo' | 'fromWid' | 'fromSpot' | 'toWid' | 'toSpot' | 'units'>;

/** The ledger row of a lot taken: out of its lot, into `to` (a Move) or nowhere (an Issue). */
export function ledgerRow(t: TakenLot, to: { wid: number; spot: string } | null): LedgerRow {
  return { recNo: t.recNo, fromRecNo: t.from.recNo, fromWid: t.from.wID, fromSpot: t.from.spot, toWid: to?.wid ?? null, toSpot: to?.spot ?? null, units: t.units };
}

/** Who made a change, and the key the request was sent with (if any), kept with every ledger row. */
export interface LedgerOrigin {
  clientId: string;
  requestKey: string | null;
}

/**
 * One ledger row per lot touched, grouped by a new operationId; the body fields
 * without a column go to `extra`. Then the list counters the rows imply (lots
 * per warehouse, ledger rows), after the rows they count (locks.ts, step 5).
 */
export async function writeLedger(
  ctx: TransactionContext,
  origin: LedgerOrigin,
  operation: LedgerEntry['operation'],
  partNo: number,
  dto: ReceiveDto | IssueDto | MoveDto | HoldDto | CountDto,
  rows: LedgerRow[],
): Promise<void> {
  const { itemID: _i, wid: _w, units: _u, reference, ...rest } = dto as ReceiveDto & IssueDto & MoveDto & HoldDto & Partial<CountDto>;
  const { reasonCode, remark, ...extra } = rest;
  const extraJson = Object.keys(extra).length ? JSON.stringify(extra) : null;
  const created = new Date();
  const operationId = randomUUID();
  const entry = (row: LedgerRow) => ({
    ...row,
    operationId,
    operation,
    partNo,
    reasonCode: reasonCode ?? null,
    reference: reference ?? '',
    remark: remark ?? '',
    extra: extraJson,
    clientId: origin.clientId,
    requestKey: origin.requestKey,
    created,
  });
  // New rows nothing in the transaction reads: they go with the commit. A chunk at a time, the event loop turning between.
  for (const chunk of chunks(rows)) {
    await letOthersRun();
    ctx.later(insertStatement(ctx.manager, LedgerEntry, chunk.map(entry)));
  }
  countLedgerRows(ctx, rows);
}
