import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { formatDecimal, subtractDecimal, toTenThousandths } from '../quantity.js';
import { columnValue, execute, insertRows, plusDecimal, type Statement, updateStatement } from '../database/statements.js';
import { ROWS_PER_INSERT, type TransactionContext } from '../database/transaction-context.js';
import { letOthersRun } from '../database/event-loop.js';
import { LedgerEntry, Lot, StockLevel } from './inventory.entities.js';
import { countLedgerRows } from './list-counts.js';
import type { PickPlan } from './pick.js';
import { LEVEL_COLUMNS, type LedgerFields, type LedgerRow, type LevelDelta, type LevelFigures, type TakenLot } from './stock-changes.js';

function chunks<T>(values: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += ROWS_PER_INSERT) out.push(values.slice(i, i + ROWS_PER_INSERT));
  return out;
}

/**
 * The writes of a stock change, in the transaction of its context
 * (`ctx.manager`): lots, stock levels, ledger rows. A write to rows the
 * transaction has locked, whose result is not needed, is held back for the
 * commit (`ctx.later`); the new ledger rows, which nothing in the
 * transaction reads, are kept for it (`ctx.insertWithCommit`).
 */
@Injectable()
export class StockChangesRepository {
  /**
   * Applies a pick plan to its locked lots. A lot taken whole gets `changes` in
   * place and keeps its recNo; the lot taken in part keeps the rest, and the part
   * becomes a new lot like it (received date, serials, remark, hold) with
   * `changes`. Issue archives (`shipped`, `active` false); Move relocates.
   */
  async applyPick(ctx: TransactionContext, plan: PickPlan<Lot>, changes: Partial<Lot>, now: Date): Promise<TakenLot[]> {
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

  /** Inserts a new lot in one hand-written statement (Receive's); returns its recNo. */
  insertLot(ctx: TransactionContext, lot: Partial<Lot>): Promise<number> {
    return insertRows(ctx.manager, Lot, [lot]);
  }

  /** Makes a lot of these values and inserts it through the entity manager (a Count's); the lot gets its recNo. */
  async createLot(ctx: TransactionContext, values: Omit<Lot, 'recNo'>): Promise<Lot> {
    const m = ctx.manager;
    const lot = m.create(Lot, values);
    await m.insert(Lot, lot);
    return lot;
  }

  /** Sets a locked stock_level row's inStock and onHold (checked against the bound by the caller: `levelAdded`). */
  async setLevel(ctx: TransactionContext, level: Pick<StockLevel, 'partNo' | 'wID'>, figures: Pick<LevelFigures, 'inStock' | 'onHold'>, now: Date): Promise<void> {
    await ctx.manager.update(StockLevel, { partNo: level.partNo, wID: level.wID }, { ...figures, modified: now });
  }

  /**
   * Adds to the item's stock_level row for the warehouse in one statement, the
   * sums done exactly by the database (no read before the write); it locks the
   * row. False when there is no such row. The caller has checked the bound.
   */
  async addToLevel(ctx: TransactionContext, partNo: number, wid: number, delta: LevelDelta, now: Date): Promise<boolean> {
    const { sql, params } = levelAddition(ctx, partNo, wid, delta, now);
    return (await execute(ctx.manager, sql, params)) > 0;
  }

  /**
   * `addToLevel` with the commit, for a stock_level row the transaction has
   * locked (it exists): `inStock` and `onHold` moved by a change of lots, the
   * documents' figures by a change of a document.
   */
  addToLockedLevel(ctx: TransactionContext, partNo: number, wid: number, delta: LevelDelta, now: Date): void {
    ctx.later(levelAddition(ctx, partNo, wid, delta, now));
  }

  /** The item's stock_level rows in these warehouses as they are now in the transaction (a change's event). */
  levels(ctx: TransactionContext, partNo: number, wids: number[]): Promise<StockLevel[]> {
    return ctx.manager.find(StockLevel, { where: { partNo, wID: In(wids) } });
  }

  /**
   * One ledger row per lot touched, grouped by a new operationId, each with
   * the request's `fields`. Then the list counters the rows imply (lots per
   * warehouse, ledger rows), after the rows they count (locks.repository.ts,
   * step 6).
   */
  async writeLedger(ctx: TransactionContext, fields: LedgerFields, operation: LedgerEntry['operation'], partNo: number, rows: LedgerRow[]): Promise<void> {
    const created = new Date();
    const operationId = randomUUID();
    const entry = (row: LedgerRow) => ({
      ...row,
      operationId,
      operation,
      partNo,
      reasonCode: fields.reasonCode,
      reference: fields.reference,
      remark: fields.remark,
      extra: fields.extra,
      clientId: fields.clientId,
      requestKey: fields.requestKey,
      created,
    });
    // New rows nothing in the transaction reads: they go with the commit, with the other operations' of a unit (a Batch). Made a chunk at a time, the event loop turning between.
    for (const chunk of chunks(rows)) {
      await letOthersRun();
      ctx.insertWithCommit(LedgerEntry, chunk.map(entry));
    }
    countLedgerRows(ctx, rows);
  }
}

/** The UPDATE adding `delta` to the row's figures, each in SQL, exactly (inStock and onHold always, the others when they change). */
function levelAddition(ctx: TransactionContext, partNo: number, wid: number, delta: LevelDelta, now: Date): Statement {
  const m = ctx.manager;
  const columns = LEVEL_COLUMNS.filter((c) => c === 'inStock' || c === 'onHold' || (delta[c] !== undefined && delta[c] !== 0));
  return {
    sql: `UPDATE stock_level SET ${columns.map((c) => `${c} = ${plusDecimal(m, c)}`).join(', ')}, modified = ? WHERE partNo = ? AND wID = ?`,
    params: [...columns.map((c) => decimalText(delta[c] ?? 0)), columnValue(m, StockLevel, 'modified', now), partNo, wid],
  };
}

function decimalText(value: number): string {
  const count = toTenThousandths(value);
  if (count === null) throw new RangeError(`${value} is not a DECIMAL(18,4) value`);
  return formatDecimal(count);
}
