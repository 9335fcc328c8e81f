import { Injectable } from '@nestjs/common';
import type { Caller } from '../auth/caller.js';
import { fromTenThousandths, storedTenThousandths, sumDecimals, withinDecimalMax } from '../quantity.js';
import { TransactionRunner } from '../database/transactions.js';
import { ValidationFailed } from '../errors.js';
import { AllocationsService } from './allocations.service.js';
import { ExpectationsService } from './expectations.service.js';
import type { HoldDto, IssueDto, MoveDto, ReceiveDto } from './inventory.dto.js';
import {
  type IssuedLotResponseDto,
  type HeldResponseDto,
  type IssuedResponseDto,
  type MovedLotResponseDto,
  type MovedResponseDto,
  type ReceivedResponseDto,
  type ReleasedResponseDto,
  toLotResponse,
} from './inventory.responses.js';
import { Lot } from './inventory.entities.js';
import { ItemKeyCache, type ItemKeys, unknownItem } from './item-keys.js';
import { type LotBudget, lotsTouched } from './lot-budget.js';
import { StockLocksRepository } from './locks.repository.js';
import { assertAvailable, holdFilter, InsufficientStock, issueFilter, moveFilter, pick, pickOrAll, planUnits, unitsOf } from './pick.js';
import { availableOf, ItemDiscontinued, ledgerFields, ledgerRow, levelAdded, type LevelDelta, StockLimitExceeded, type TakenLot, withDelta } from './stock-changes.js';
import { StockChangesRepository } from './stock-changes.repository.js';
import { StockEvents } from './stock-events.js';
import { WarehouseNames } from './warehouse-names.js';

/**
 * Receive, Move, Issue, Hold and Release, each one transaction
 * (TransactionRunner; in a request, the request's unit of work) that locks in
 * the order written in locks.repository.ts (every lock through
 * StockLocksRepository, Receive's of the item with its stock among them), decides with
 * pick.ts, and writes lots, stock levels and ledger together through
 * StockChangesRepository. A Receive against an expectation and an Issue
 * against an allocation change the document too (ExpectationsService,
 * AllocationsService), in the same transaction.
 */
@Injectable()
export class InventoryService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly warehouseNames: WarehouseNames,
    private readonly events: StockEvents,
    private readonly itemKeys: ItemKeyCache,
    private readonly locks: StockLocksRepository,
    private readonly changes: StockChangesRepository,
    private readonly allocations: AllocationsService,
    private readonly expectations: ExpectationsService,
  ) {}

  async receive(caller: Caller, dto: ReceiveDto, requestKey: string | null = null, budget: LotBudget | null = null): Promise<ReceivedResponseDto> {
    caller.assertWarehouses(dto.wid);
    if (dto.expectationId !== undefined) await this.expectations.referenced(dto.expectationId, (await this.itemFor(dto.itemID)).partNo, dto.wid);
    const warehouse = await this.warehouseNames.one(dto.wid);
    return this.tx.run(async (ctx) => {
      const found = await this.locks.lockItemWithTotal(ctx, dto.itemID, dto.wid);
      if (!found) throw unknownItem(dto.itemID);
      const { item, total, level } = found;
      if (item.discontinued) throw new ItemDiscontinued(item.shortID);
      if (!withinDecimalMax(total, dto.units)) throw new StockLimitExceeded(item.shortID, null);
      // Against an expectation: locked after the item's stock_level row, which the statement above locked.
      const receipt = dto.expectationId === undefined ? null : await this.expectations.receipt(ctx, dto.expectationId, dto.units);
      budget?.spend(1);
      const now = new Date();
      const lot = Object.assign(new Lot(), {
        partNo: item.partNo,
        shortIdKey: item.shortIdKey,
        wID: dto.wid,
        spot: dto.spot ?? '',
        units: dto.units,
        received: now,
        shipped: null,
        serial: dto.serial ?? '',
        serial2: dto.serial2 ?? '',
        rFIDTag: dto.rfidTag ?? '',
        remark: dto.remark ?? '',
        hold: dto.hold ?? false,
        jobID: dto.jobid ?? 0,
        jobName: '',
        associate: '',
        active: true,
        netWeight: dto.netWeight ?? null,
        grossWeight: dto.grossWeight ?? null,
        price: dto.price ?? null,
        expires: dto.expires ?? null,
        supplier: dto.supplier ?? null,
        poLine: dto.line ?? null,
        modified: now,
      });
      // The item's total is within the bound, so is this warehouse's part of it.
      const delta: LevelDelta = { inStock: dto.units, onHold: lot.hold ? dto.units : 0, ...receipt?.delta };
      // The row was locked with the item when it existed: after the change it holds exactly this.
      let levelAfter = level ? withDelta(level, delta) : undefined;
      if (level) {
        this.changes.addToLockedLevel(ctx, item.partNo, dto.wid, delta, now);
      } else if (!(await this.changes.addToLevel(ctx, item.partNo, dto.wid, delta, now))) {
        levelAfter = undefined;
        await this.locks.lockLevels(ctx, item.partNo, [dto.wid], dto.wid);
        await this.changes.addToLevel(ctx, item.partNo, dto.wid, delta, now);
      }
      if (receipt) this.expectations.received(ctx, receipt, now);
      lot.recNo = await this.changes.insertLot(ctx, lot);
      await this.changes.writeLedger(ctx, ledgerFields(caller.clientId, requestKey, dto), 'receive', item.partNo, [
        { recNo: lot.recNo, fromRecNo: null, fromWid: null, fromSpot: null, toWid: dto.wid, toSpot: lot.spot, units: dto.units },
      ]);
      const result: ReceivedResponseDto = { status: 'received', recNo: lot.recNo, lot: toLotResponse(lot, item.shortID, item.description, warehouse) };
      const document = dto.expectationId === undefined ? undefined : { expectationId: dto.expectationId };
      await this.events.record(ctx, { type: 'stock.received', item, wid: dto.wid, reasonCode: dto.reasonCode, reference: dto.reference, clientId: caller.clientId, answer: result, levelAfter, document });
      return result;
    });
  }

  async issue(caller: Caller, dto: IssueDto, requestKey: string | null = null, budget: LotBudget | null = null): Promise<IssuedResponseDto> {
    caller.assertWarehouses(dto.wid);
    const item = await this.itemFor(dto.itemID);
    if (dto.allocationId !== undefined) await this.allocations.referenced(dto.allocationId, item.partNo, dto.wid);
    return this.tx.run(async (ctx) => {
      const now = new Date();
      const of = { shortId: item.shortID, wid: dto.wid };
      // The item first (the lock order): the part of a lot split off is inserted with a foreign key to it.
      await this.locks.holdItem(ctx, item.partNo);
      const level = await this.locks.lockLevel(ctx, item.partNo, dto.wid);
      // Against an allocation: what is left on it ships, packed units first (the allocation locked after the row, before the lots).
      const shipment = dto.allocationId === undefined ? null : await this.allocations.shipment(ctx, dto.allocationId, dto.units, item.shortID);
      const candidates = level ? await this.locks.lockLots(ctx, item.partNo, dto.wid, issueFilter(dto), { units: dto.units, budget }) : [];
      // A plain Issue takes only available units: allocated ones are not its to take (EXTENSIONS).
      if (!shipment) assertAvailable(availableOf(level), dto.units, of, dto.units, unitsOf(candidates));
      const plan = pick(candidates, dto.units, of);
      budget?.spend(lotsTouched(plan));
      // DECISIONS "Inventory": issued lots are archived; one issued whole keeps its units as the issued quantity.
      const done = await this.changes.applyPick(ctx, plan, { shipped: now, active: false }, now);
      const delta: LevelDelta = { inStock: -dto.units, ...shipment?.delta };
      this.changes.addToLockedLevel(ctx, item.partNo, dto.wid, delta, now);
      if (shipment) this.allocations.shipped(ctx, shipment, now);
      await this.changes.writeLedger(ctx, ledgerFields(caller.clientId, requestKey, dto), 'issue', item.partNo, done.map((t) => ledgerRow(t, null)));
      const result: IssuedResponseDto = { status: 'issued', units: dto.units, lots: done.map((t): IssuedLotResponseDto => ({ recNo: t.recNo, fromRecNo: t.from.recNo, units: t.units })) };
      // The row was locked before the change: after it, it holds exactly this.
      const levelAfter = level ? withDelta(level, delta) : undefined;
      const document = dto.allocationId === undefined ? undefined : { allocationId: dto.allocationId };
      await this.events.record(ctx, { type: 'stock.issued', item, wid: dto.wid, reasonCode: dto.reasonCode, reference: dto.reference, clientId: caller.clientId, answer: result, levelAfter, document });
      return result;
    });
  }

  async move(caller: Caller, dto: MoveDto, requestKey: string | null = null, budget: LotBudget | null = null): Promise<MovedResponseDto> {
    const dest = dto.shipToWid ?? dto.wid;
    if (dest === dto.wid && (dto.toSpot === undefined || dto.toSpot === dto.fromSpot)) {
      throw new ValidationFailed({ toSpot: ['the destination must differ from the source: give shipToWid or a toSpot other than fromSpot'] });
    }
    caller.assertWarehouses(dto.wid, dto.shipToWid);
    const item = await this.itemFor(dto.itemID);
    return this.tx.run(async (ctx) => {
      const now = new Date();
      await this.locks.holdItem(ctx, item.partNo, dest);
      const [source, target] = await this.locks.lockLevels(ctx, item.partNo, [dto.wid, dest], dest);
      const candidates = source ? await this.locks.lockLots(ctx, item.partNo, dto.wid, moveFilter(dto), { units: dto.units, budget }) : [];
      const plan = pick(candidates, dto.units, { shortId: item.shortID, wid: dto.wid });
      if (dest !== dto.wid) {
        // Out of the warehouse: the units not held leave `available`, which they may not pass (EXTENSIONS); held ones travel with their hold.
        const held = storedTenThousandths(planUnits(plan, (lot) => lot.hold));
        const available = availableOf(source);
        // Held units alone never lower `available`: a Move of them goes when `available` is negative too. Refused, it names what could move.
        const free = storedTenThousandths(dto.units) - held;
        if (free > 0n && free > available) throw new InsufficientStock(item.shortID, dto.wid, dto.units, fromTenThousandths(held > 0n ? (available > 0n ? available : 0n) + held : available));
      }
      budget?.spend(lotsTouched(plan));
      // Without a toSpot each lot keeps its own spot; the hold travels with the units.
      const to: Partial<Lot> = dto.toSpot === undefined ? { wID: dest } : { wID: dest, spot: dto.toSpot };
      const done = await this.changes.applyPick(ctx, plan, to, now);
      if (dest !== dto.wid) {
        const held = sumDecimals(done.filter((t) => t.from.hold).map((t) => t.units));
        if (source) await this.changes.setLevel(ctx, source, levelAdded(item, source, -dto.units, -held), now);
        if (target) await this.changes.setLevel(ctx, target, levelAdded(item, target, dto.units, held), now);
      } else if (source) {
        await this.changes.setLevel(ctx, source, levelAdded(item, source, 0, 0), now);
      }
      const spotOf = (t: TakenLot) => dto.toSpot ?? t.from.spot;
      await this.changes.writeLedger(ctx, ledgerFields(caller.clientId, requestKey, dto), 'move', item.partNo, done.map((t) => ledgerRow(t, { wid: dest, spot: spotOf(t) })));
      const lots = done.map((t): MovedLotResponseDto => ({ recNo: t.recNo, fromRecNo: t.from.recNo, units: t.units, wid: dest, spot: spotOf(t) }));
      const result: MovedResponseDto = { status: 'moved', units: dto.units, lots };
      await this.events.record(ctx, { type: 'stock.moved', item, wid: dto.wid, shipToWid: dto.shipToWid, reference: dto.reference, clientId: caller.clientId, answer: result });
      return result;
    });
  }

  /**
   * Hold (`hold` true) or Release: the matching lots, or `units` of them
   * oldest first with the last one split, change their hold; the part split
   * off becomes a new lot like the source with the new hold. Lock order and
   * picking as an Issue; `inStock` stays, `onHold` follows.
   */
  async hold(caller: Caller, dto: HoldDto, hold: true, requestKey?: string | null, budget?: LotBudget | null): Promise<HeldResponseDto>;
  async hold(caller: Caller, dto: HoldDto, hold: false, requestKey?: string | null, budget?: LotBudget | null): Promise<ReleasedResponseDto>;
  async hold(caller: Caller, dto: HoldDto, hold: boolean, requestKey: string | null = null, budget: LotBudget | null = null): Promise<HeldResponseDto | ReleasedResponseDto> {
    caller.assertWarehouses(dto.wid);
    const item = await this.itemFor(dto.itemID);
    return this.tx.run(async (ctx) => {
      const now = new Date();
      await this.locks.holdItem(ctx, item.partNo);
      const { level, lots: candidates } = await this.locks.lockLevelAndLots(ctx, item.partNo, dto.wid, holdFilter(dto, hold), { units: dto.units, budget });
      const of = { shortId: item.shortID, wid: dto.wid };
      const plan = pickOrAll(candidates, dto.units, of);
      // A Hold takes available units (EXTENSIONS): not allocated ones.
      if (hold) assertAvailable(availableOf(level), planUnits(plan), of, dto.units ?? null, unitsOf(candidates));
      budget?.spend(lotsTouched(plan));
      const done = await this.changes.applyPick(ctx, plan, { hold }, now);
      const units = sumDecimals(done.map((t) => t.units));
      const delta = { inStock: 0, onHold: hold ? units : -units };
      this.changes.addToLockedLevel(ctx, item.partNo, dto.wid, delta, now);
      const here = (t: TakenLot) => ({ wid: dto.wid, spot: t.from.spot });
      await this.changes.writeLedger(ctx, ledgerFields(caller.clientId, requestKey, dto), hold ? 'hold' : 'release', item.partNo, done.map((t) => ledgerRow(t, here(t))));
      const lots = done.map((t) => ({ recNo: t.recNo, fromRecNo: t.from.recNo, units: t.units }));
      const result = hold ? { status: 'held' as const, units, lots } : { status: 'released' as const, units, lots };
      // The row was locked before the change: inStock stays, onHold moves by the units.
      const levelAfter = level ? withDelta(level, delta) : undefined;
      await this.events.record(ctx, {
        type: hold ? 'stock.held' : 'stock.released',
        item,
        wid: dto.wid,
        reasonCode: dto.reasonCode,
        reference: dto.reference,
        clientId: caller.clientId,
        answer: result,
        levelAfter,
      });
      return result;
    });
  }

  /** Referenced item, not locked: unknown → validation_error on itemID (DECISIONS "Inventory"). */
  private async itemFor(itemID: string): Promise<ItemKeys> {
    const item = await this.itemKeys.of(itemID);
    if (!item) throw unknownItem(itemID);
    return item;
  }
}
