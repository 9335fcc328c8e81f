import { Injectable } from '@nestjs/common';
import type { Item } from '../catalog/catalog.entities.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { type Caller, FORBIDDEN, Forbidden } from '../auth/caller.js';
import { SecurityId } from '../auth/security-id.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { ValidationFailed } from '../errors.js';
import { compareDecimal, subtractDecimal, sumDecimals, withinDecimalMax } from '../quantity.js';
import type { CountDto } from './inventory.dto.js';
import type { CountedResponseDto } from './inventory.responses.js';
import { StockLocksRepository } from './locks.repository.js';
import { type LotBudget, lotsTouched } from './lot-budget.js';
import { countFilter, countTake, planCount } from './pick.js';
import { ItemDiscontinued, ledgerFields, ledgerRow, levelAdded, StockLimitExceeded } from './stock-changes.js';
import { StockChangesRepository } from './stock-changes.repository.js';
import { StockEvents } from './stock-events.js';

/**
 * POST /Inventory/Count, a stock-take: the matching in-stock lots (held ones
 * included) are set to `counted` units. One transaction in the lock order of
 * locks.repository.ts: the item row (a count may receive, and Receives run one at a time
 * per item), the stock_level row (created when a count receives into a
 * warehouse without one), the lots. planCount (pick.ts) decides; this applies.
 */
@Injectable()
export class CountService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly events: StockEvents,
    private readonly items: ItemLocksRepository,
    private readonly locks: StockLocksRepository,
    private readonly changes: StockChangesRepository,
  ) {}

  async count(caller: Caller, dto: CountDto, requestKey: string | null = null, budget: LotBudget | null = null): Promise<CountedResponseDto> {
    caller.assertWarehouses(dto.wid);
    return this.tx.run(async (ctx) => {
      const result = await this.apply(ctx, caller, dto, requestKey, budget);
      await this.events.record(ctx, {
        type: 'stock.counted',
        item: result.item,
        wid: dto.wid,
        reasonCode: dto.reasonCode,
        reference: dto.reference,
        clientId: caller.clientId,
        answer: result.answer,
      });
      return result.answer;
    });
  }

  /** The count's writes, in the caller's transaction: the item and the answer. */
  private async apply(ctx: TransactionContext, caller: Caller, dto: CountDto, requestKey: string | null, budget: LotBudget | null): Promise<{ item: Item; answer: CountedResponseDto }> {
    const item = await this.items.lockItem(ctx, dto.itemID);
    if (!item) throw new ValidationFailed({ itemID: [`itemID "${dto.itemID}" does not name an item`] });
    const now = new Date();
    const of = { shortId: item.shortID, wid: dto.wid };
    const [level] = await this.locks.lockLevels(ctx, item.partNo, [dto.wid], dto.counted > 0 ? dto.wid : undefined);
    // The units on hand by one sum, not by reading every matching lot: only the lots a change takes are read.
    const filter = countFilter(dto);
    const plan = planCount(level ? await this.locks.lotUnits(ctx, item.partNo, dto.wid, filter) : 0n, dto.counted, dto.expected, of);
    // Which SecurityID the change needs is known only now, after the expected check (EXTENSIONS).
    if ((plan.delta > 0 && !caller.can(SecurityId.PositiveAdjustment)) || (plan.delta < 0 && !caller.can(SecurityId.NegativeAdjustment))) {
      throw new Forbidden(FORBIDDEN.permission);
    }
    const fields = ledgerFields(caller.clientId, requestKey, dto);
    const answer = (lots: CountedResponseDto['lots']) => ({ item, answer: { status: 'counted' as const, before: plan.before, counted: dto.counted, delta: plan.delta, lots } });

    if (plan.delta > 0) {
      if (item.discontinued) throw new ItemDiscontinued(item.shortID, 'counted up');
      if (!withinDecimalMax(await this.locks.itemTotal(ctx, item.partNo), plan.delta)) throw new StockLimitExceeded(item.shortID, null);
      budget?.spend(1);
      const lot = await this.changes.createLot(ctx, {
        partNo: item.partNo, shortIdKey: item.shortIdKey, wID: dto.wid, spot: dto.spot ?? '', units: plan.delta, received: now, shipped: null,
        serial: dto.serial ?? '', serial2: dto.serial2 ?? '', rFIDTag: dto.rfidTag ?? '', remark: dto.remark ?? '', hold: false,
        jobID: 0, jobName: '', associate: '', active: true, netWeight: null, grossWeight: null, price: null, expires: null,
        supplier: null, poLine: null, modified: now,
      });
      if (level) await this.changes.setLevel(ctx, level, levelAdded(item, level, plan.delta, 0), now);
      const row = { recNo: lot.recNo, fromRecNo: null, fromWid: null, fromSpot: null, toWid: dto.wid, toSpot: lot.spot, units: plan.delta };
      await this.changes.writeLedger(ctx, fields, 'count', item.partNo, [row]);
      return answer([{ recNo: lot.recNo, fromRecNo: null, units: plan.delta }]);
    }
    if (plan.delta < 0) {
      // Fewer: -delta units, not-held lots first, then held ones, each read only as far as needed (locks.repository.ts).
      const units = -plan.delta;
      const free = await this.locks.lockLots(ctx, item.partNo, dto.wid, { ...filter, includeHeld: false }, { units, budget });
      const freeUnits = sumDecimals(free.map((l) => l.units));
      const heldLots = compareDecimal(freeUnits, units) < 0 ? await this.locks.lockLots(ctx, item.partNo, dto.wid, { ...filter, onlyHeld: true }, { units: subtractDecimal(units, freeUnits), budget }) : [];
      const take = countTake([...free, ...heldLots], units, of);
      budget?.spend(lotsTouched(take));
      const done = await this.changes.applyPick(ctx, take, { shipped: now, active: false }, now);
      const held = sumDecimals(done.filter((t) => t.from.hold).map((t) => t.units));
      if (level) await this.changes.setLevel(ctx, level, levelAdded(item, level, plan.delta, -held), now);
      await this.changes.writeLedger(ctx, fields, 'count', item.partNo, done.map((t) => ledgerRow(t, null)));
      return answer(done.map((t) => ({ recNo: t.recNo, fromRecNo: t.from.recNo, units: -t.units })));
    }
    // Equal: nothing changes but the ledger records the count, on the oldest matching lot (0 when none matched),
    // as a row from that lot into itself: no lot is created or moved, so no list counter changes.
    const [oldest] = level ? await this.locks.lockLots(ctx, item.partNo, dto.wid, filter, { count: 1 }) : [];
    const spot = dto.spot ?? oldest?.spot ?? '';
    await this.changes.writeLedger(ctx, fields, 'count', item.partNo, [
      { recNo: oldest?.recNo ?? 0, fromRecNo: oldest?.recNo ?? 0, fromWid: dto.wid, fromSpot: spot, toWid: dto.wid, toSpot: spot, units: 0 },
    ]);
    return answer([]);
  }
}
