import { Injectable } from '@nestjs/common';
import type { Caller } from '../auth/caller.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { ValidationFailed } from '../errors.js';
import type { AllocateDto, PackDto } from './allocation.dto.js';
import { type AllocatedResponseDto, type AllocationCancelledResponseDto, type PackedResponseDto, toAllocationResponse } from './allocation.responses.js';
import { type AllocationRow, AllocationsRepository, type DueAllocation } from './allocations.repository.js';
import type { Allocation } from './documents.entities.js';
import { ItemKeyCache, unknownItem } from './item-keys.js';
import { StockLocksRepository } from './locks.repository.js';
import { assertAvailable } from './pick.js';
import { availableOf, type LevelFigures, withDelta } from './stock-changes.js';
import { StockChangesRepository } from './stock-changes.repository.js';
import { type DocumentChange, DocumentNotFound, planAllocationCancel, planExpiry, planPack, planShipment, seenDocument } from './stock-documents.js';
import { StockEvents } from './stock-events.js';

type Answer<S extends string> = { status: S; allocation: ReturnType<typeof toAllocationResponse> };

/**
 * Allocations (EXTENSIONS "Every stock state the spec names"): Allocate,
 * Pack, Cancel, the expiry of one allocation, and an Issue's shipment from
 * one (InventoryService.issue calls `referenced`, `shipment` and `shipped`).
 * Each change is one transaction (TransactionRunner; in a request, its unit
 * of work) that locks the item's stock_level row, then the allocation (the
 * lock order, locks.repository.ts), decides with stock-documents.ts, and
 * writes the allocation and the row's figures together, with its event.
 */
@Injectable()
export class AllocationsService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly itemKeys: ItemKeyCache,
    private readonly locks: StockLocksRepository,
    private readonly changes: StockChangesRepository,
    private readonly allocations: AllocationsRepository,
    private readonly events: StockEvents,
  ) {}

  /** POST /Inventory/Allocate: only available units; committed rises by them. */
  async allocate(caller: Caller, dto: AllocateDto): Promise<AllocatedResponseDto> {
    caller.assertWarehouses(dto.wid);
    const item = await this.itemKeys.of(dto.itemID);
    if (!item) throw unknownItem(dto.itemID);
    return this.tx.run(async (ctx) => {
      // The item row first, in share mode (the lock order): writing the allocation row checks its foreign key to
      // item with a shared lock on that row, which a Receive, Count or Expect holding the item and waiting for
      // this stock_level row would otherwise deadlock with.
      await this.locks.holdItem(ctx, item.partNo);
      const level = await this.locks.lockLevel(ctx, item.partNo, dto.wid);
      assertAvailable(availableOf(level), dto.units, { shortId: item.shortID, wid: dto.wid });
      const now = new Date();
      const values: Omit<Allocation, 'id'> = {
        partNo: item.partNo,
        wID: dto.wid,
        reference: dto.reference,
        units: dto.units,
        packed: 0,
        shipped: 0,
        state: 'open',
        expiresAt: dto.expiresAt ?? null,
        created: now,
        modified: now,
      };
      const allocation: Allocation = { id: await this.allocations.insert(ctx, values), ...values };
      const delta = { committed: dto.units };
      this.changes.addToLockedLevel(ctx, item.partNo, dto.wid, delta, now);
      const answer: AllocatedResponseDto = { status: 'allocated', allocation: toAllocationResponse(allocation, item.shortID) };
      // Units are available only where the row exists: it was locked, and is now as the delta leaves it.
      await this.events.record(ctx, { type: 'stock.allocated', item, wid: dto.wid, reference: dto.reference, clientId: caller.clientId, answer, levelAfter: withDelta(level!, delta) });
      return answer;
    });
  }

  /** POST /Inventory/Allocations/{id}/Pack: units move from committed to packed. */
  async pack(caller: Caller, id: number, dto: PackDto): Promise<PackedResponseDto> {
    const found = await this.named(caller, id);
    return this.tx.run(async (ctx) => {
      const { level, allocation } = await this.lock(ctx, found);
      return this.apply(ctx, found, level, planPack(allocation, dto.units, { shortId: found.shortID }), 'packed', caller.clientId);
    });
  }

  /** POST /Inventory/Allocations/{id}/Cancel: what is left, committed and packed, goes back to available. */
  async cancel(caller: Caller, id: number): Promise<AllocationCancelledResponseDto> {
    const found = await this.named(caller, id);
    return this.tx.run(async (ctx) => {
      const { level, allocation } = await this.lock(ctx, found);
      return this.apply(ctx, found, level, planAllocationCancel(allocation), 'cancelled', caller.clientId);
    });
  }

  /**
   * The expiry of one allocation the expiry found due, in a transaction of
   * its own: its locks in the lock order, then the allocation as it is now
   * decides (planExpiry). False when there was nothing (left) to expire: an
   * instance that got there second records nothing.
   */
  async expire(due: DueAllocation, now: Date): Promise<boolean> {
    return this.tx.run(async (ctx) => {
      const { level, allocation } = await this.lock(ctx, due);
      const change = planExpiry(allocation, now);
      if (!change) return false;
      await this.apply(ctx, due, level, change, 'expired', null);
      return true;
    });
  }

  /**
   * An Issue's `allocationId`, a referenced thing (DECISIONS "Order of
   * checks": 400 before any state is looked at): an allocation of the Issue's
   * item and warehouse.
   */
  async referenced(id: number, partNo: number, wid: number): Promise<void> {
    const found = await this.allocations.find(id);
    if (!found || found.partNo !== partNo || found.wID !== wid) {
      throw new ValidationFailed({ allocationId: [`allocationId ${id} names no allocation of this itemID in warehouse ${wid}`] });
    }
  }

  /** An Issue's shipment from the allocation: locked (after its stock_level row), and planned; its delta is the allocation's part of the row's change. */
  async shipment(ctx: TransactionContext, id: number, units: number, shortId: string): Promise<DocumentChange<Allocation>> {
    const allocation = await this.allocations.lock(ctx, id);
    if (!allocation) throw new DocumentNotFound('allocation', id);
    return planShipment(allocation, units, { shortId });
  }

  /** Writes the allocation an Issue shipped from. */
  shipped(ctx: TransactionContext, change: DocumentChange<Allocation>, now: Date): void {
    this.allocations.update(ctx, { ...change.after, modified: now });
  }

  /** The allocation a path names, in the caller's scope: unknown, or in a warehouse out of scope → 404 (Caller.sees). */
  private async named(caller: Caller, id: number): Promise<AllocationRow> {
    return seenDocument(caller, 'allocation', id, await this.allocations.find(id));
  }

  /** The allocation's stock_level row, then the allocation, locked; its item and warehouse never change, so the row is the one to lock. */
  private async lock(ctx: TransactionContext, found: Pick<Allocation, 'id' | 'partNo' | 'wID'>): Promise<{ level: LevelFigures; allocation: Allocation }> {
    const level = await this.locks.lockLevel(ctx, found.partNo, found.wID);
    const allocation = await this.allocations.lock(ctx, found.id);
    // An allocation is made only where the row exists, and neither is ever deleted.
    if (!level || !allocation) throw new DocumentNotFound('allocation', found.id);
    return { level, allocation };
  }

  /** Writes a planned change of an allocation and its row, records its event, and returns the answer. */
  private async apply<S extends 'packed' | 'cancelled' | 'expired'>(
    ctx: TransactionContext,
    found: Pick<Allocation, 'partNo' | 'wID'> & { shortID: string },
    level: LevelFigures,
    change: DocumentChange<Allocation>,
    status: S,
    clientId: string | null,
  ): Promise<Answer<S>> {
    const now = new Date();
    const allocation = { ...change.after, modified: now };
    this.allocations.update(ctx, allocation);
    this.changes.addToLockedLevel(ctx, found.partNo, found.wID, change.delta, now);
    const answer = { status, allocation: toAllocationResponse(allocation, found.shortID) };
    const type = status === 'packed' ? 'stock.packed' : status === 'cancelled' ? 'allocation.cancelled' : 'allocation.expired';
    const item = { partNo: found.partNo, shortID: found.shortID };
    await this.events.record(ctx, { type, item, wid: found.wID, clientId, answer, levelAfter: withDelta(level, change.delta) });
    return answer;
  }
}

