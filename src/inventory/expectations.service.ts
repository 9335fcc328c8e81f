import { Injectable } from '@nestjs/common';
import type { Caller } from '../auth/caller.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { ValidationFailed } from '../errors.js';
import { storedTenThousandths, withinDecimalMax } from '../quantity.js';
import type { Expectation } from './documents.entities.js';
import type { ExpectDto } from './expectation.dto.js';
import { type ExpectationCancelledResponseDto, type ExpectationShippedResponseDto, type ExpectedResponseDto, toExpectationResponse } from './expectation.responses.js';
import { type ExpectationRow, ExpectationsRepository } from './expectations.repository.js';
import { unknownItem } from './item-keys.js';
import { StockLocksRepository } from './locks.repository.js';
import { ItemDiscontinued, type LevelFigures, StockLimitExceeded, withDelta } from './stock-changes.js';
import { StockChangesRepository } from './stock-changes.repository.js';
import { type DocumentChange, DocumentNotFound, planExpectationCancel, planExpectationShipment, planReceipt, seenDocument } from './stock-documents.js';
import { StockEvents } from './stock-events.js';

type Answer<S extends string> = { status: S; expectation: ReturnType<typeof toExpectationResponse> };

/**
 * Expectations (EXTENSIONS "Every stock state the spec names"): Expect,
 * Ship, Cancel, and a Receive's receipt against one (InventoryService.receive
 * calls `referenced`, `receipt` and `received`). Each change is one
 * transaction that locks the item's stock_level row, then the expectation
 * (the lock order, locks.repository.ts), decides with stock-documents.ts, and
 * writes the expectation and the row's figures together, with its event.
 */
@Injectable()
export class ExpectationsService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly items: ItemLocksRepository,
    private readonly locks: StockLocksRepository,
    private readonly changes: StockChangesRepository,
    private readonly expectations: ExpectationsRepository,
    private readonly events: StockEvents,
  ) {}

  /**
   * POST /Inventory/Expect: onOrder (or aSN) rises by the units. The item
   * is locked first, as a Receive does, and its stock_level row created when
   * missing, so that the units expected show in StockLevels before any lot.
   */
  async expect(caller: Caller, dto: ExpectDto): Promise<ExpectedResponseDto> {
    caller.assertWarehouses(dto.wid);
    return this.tx.run(async (ctx) => {
      const item = await this.items.lockItem(ctx, dto.itemID);
      if (!item) throw unknownItem(dto.itemID);
      // A discontinued item is not received (DECISIONS "Inventory"), so it is not expected either.
      if (item.discontinued) throw new ItemDiscontinued(item.shortID, 'expected');
      const [level] = await this.locks.lockLevels(ctx, item.partNo, [dto.wid], dto.wid);
      const stage = dto.stage ?? 'ordered';
      // What is expected in one warehouse stays within the bound of its stock (DECISIONS "Inventory").
      if (!withinDecimalMax(storedTenThousandths(level!.onOrder) + storedTenThousandths(level!.aSN), dto.units)) throw new StockLimitExceeded(item.shortID, dto.wid);
      const now = new Date();
      const values: Omit<Expectation, 'id'> = {
        partNo: item.partNo,
        wID: dto.wid,
        reference: dto.reference,
        units: dto.units,
        received: 0,
        stage,
        state: 'open',
        due: dto.due ?? null,
        created: now,
        modified: now,
      };
      const expectation: Expectation = { id: await this.expectations.insert(ctx, values), ...values };
      const delta = stage === 'shipped' ? { aSN: dto.units } : { onOrder: dto.units };
      this.changes.addToLockedLevel(ctx, item.partNo, dto.wid, delta, now);
      const answer: ExpectedResponseDto = { status: 'expected', expectation: toExpectationResponse(expectation, item.shortID) };
      await this.events.record(ctx, { type: 'stock.expected', item, wid: dto.wid, reference: dto.reference, clientId: caller.clientId, answer, levelAfter: withDelta(level!, delta) });
      return answer;
    });
  }

  /** POST /Inventory/Expectations/{id}/Ship: what is left moves from onOrder to aSN. */
  async ship(caller: Caller, id: number): Promise<ExpectationShippedResponseDto> {
    const found = await this.named(caller, id);
    return this.tx.run(async (ctx) => {
      const { level, expectation } = await this.lock(ctx, found);
      const change = planExpectationShipment(expectation);
      // Shipped already: nothing is written, no event; the same answer.
      if (change.after === expectation) return { status: 'shipped', expectation: toExpectationResponse(expectation, found.shortID) };
      return this.apply(ctx, found, level, change, 'shipped', caller.clientId);
    });
  }

  /** POST /Inventory/Expectations/{id}/Cancel: what is left is no longer expected. */
  async cancel(caller: Caller, id: number): Promise<ExpectationCancelledResponseDto> {
    const found = await this.named(caller, id);
    return this.tx.run(async (ctx) => {
      const { level, expectation } = await this.lock(ctx, found);
      return this.apply(ctx, found, level, planExpectationCancel(expectation), 'cancelled', caller.clientId);
    });
  }

  /** A Receive's `expectationId`, a referenced thing (400 before any state is looked at): an expectation of the Receive's item and warehouse. */
  async referenced(id: number, partNo: number, wid: number): Promise<void> {
    const found = await this.expectations.find(id);
    if (!found || found.partNo !== partNo || found.wID !== wid) {
      throw new ValidationFailed({ expectationId: [`expectationId ${id} names no expectation of this itemID in warehouse ${wid}`] });
    }
  }

  /** A Receive's receipt against the expectation: locked (after its stock_level row, which the Receive holds), and planned. */
  async receipt(ctx: TransactionContext, id: number, units: number): Promise<DocumentChange<Expectation>> {
    const expectation = await this.expectations.lock(ctx, id);
    if (!expectation) throw new DocumentNotFound('expectation', id);
    return planReceipt(expectation, units);
  }

  /** Writes the expectation a Receive received against. */
  received(ctx: TransactionContext, change: DocumentChange<Expectation>, now: Date): void {
    this.expectations.update(ctx, { ...change.after, modified: now });
  }

  /** The expectation a path names, in the caller's scope: unknown, or in a warehouse out of scope → 404 (Caller.sees). */
  private async named(caller: Caller, id: number): Promise<ExpectationRow> {
    return seenDocument(caller, 'expectation', id, await this.expectations.find(id));
  }

  /** The expectation's stock_level row, then the expectation, locked. */
  private async lock(ctx: TransactionContext, found: Pick<Expectation, 'id' | 'partNo' | 'wID'>): Promise<{ level: LevelFigures; expectation: Expectation }> {
    const level = await this.locks.lockLevel(ctx, found.partNo, found.wID);
    const expectation = await this.expectations.lock(ctx, found.id);
    // Expect creates the row, and neither is ever deleted.
    if (!level || !expectation) throw new DocumentNotFound('expectation', found.id);
    return { level, expectation };
  }

  /** Writes a planned change of an expectation and its row, records its event, and returns the answer. */
  private async apply<S extends 'shipped' | 'cancelled'>(
    ctx: TransactionContext,
    found: ExpectationRow,
    level: LevelFigures,
    change: DocumentChange<Expectation>,
    status: S,
    clientId: string,
  ): Promise<Answer<S>> {
    const now = new Date();
    const expectation = { ...change.after, modified: now };
    this.expectations.update(ctx, expectation);
    this.changes.addToLockedLevel(ctx, found.partNo, found.wID, change.delta, now);
    const answer = { status, expectation: toExpectationResponse(expectation, found.shortID) };
    const item = { partNo: found.partNo, shortID: found.shortID };
    await this.events.record(ctx, { type: status === 'shipped' ? 'expectation.shipped' : 'expectation.cancelled', item, wid: found.wID, clientId, answer, levelAfter: withDelta(level, change.delta) });
    return answer;
  }
}
