import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, In, type Repository } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { Item } from '../catalog/catalog.entities.js';
import { caseKey } from '../database/case-key.js';
import { addDecimal, compareDecimal, DECIMAL_MAX, storedTenThousandths, subtractDecimal, sumDecimals, withinDecimalMax } from '../database/decimal.js';
import { TransactionRunner } from '../database/transactions.js';
import { upsertIncrement } from '../database/upsert.js';
import { DomainError, ValidationFailed } from '../http/errors.js';
import { type IdempotencyContext, IdempotencyService } from './idempotency.js';
import type { IssueDto, LotResponse, MoveDto, ReceiveDto } from './inventory.dto.js';
import { toLotResponse } from './inventory.dto.js';
import { LedgerEntry, Lot, StockLevel } from './inventory.entities.js';
import { WarehouseNames } from './warehouse-names.js';

export class InsufficientStock extends DomainError {
  constructor(shortId: string, wid: number, requested: number, available: number) {
    super('conflict', `Insufficient stock: requested ${requested} units of ${shortId} in warehouse ${wid}, ${available} available.`);
  }
}

export class ItemDiscontinued extends DomainError {
  constructor(shortId: string) {
    super('conflict', `Item ${shortId} is discontinued; it cannot be received.`);
  }
}

/** DECISIONS "Inventory": an item's stock in one warehouse, and across all of them, stays within DECIMAL_MAX. */
export class StockLimitExceeded extends DomainError {
  constructor(shortId: string, wid: number | null) {
    super('conflict', `Stock of ${shortId} ${wid === null ? 'across all warehouses' : `in warehouse ${wid}`} would exceed ${DECIMAL_MAX} units.`);
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

export interface ReceiveResult {
  status: 'received';
  recNo: number;
  lot: LotResponse;
}

export interface IssueResult {
  status: 'issued';
  units: number;
  lots: Array<{ recNo: number; fromRecNo: number; units: number }>;
}

export interface MoveResult {
  status: 'moved';
  units: number;
  lots: Array<{ recNo: number; fromRecNo: number; units: number; wid: number; spot: string }>;
}

/** Which in-stock lots an Issue or Move takes from (DECISIONS "Inventory"). */
interface Selectors {
  recno?: number;
  spot?: string;
  serial?: string;
  serial2?: string;
  rfidTag?: string;
  receivedOn?: Date;
  includeHeld: boolean;
  /** Lots already at this spot of the destination are not moved onto themselves. */
  notAtSpot?: string;
}

type LedgerRow = Omit<LedgerEntry, 'id' | 'operationId' | 'operation' | 'partNo' | 'clientId' | 'idempotencyKey' | 'created' | 'reasonCode' | 'reference' | 'remark' | 'extra'>;

/**
 * Receive, Move and Issue. Each is one transaction (TransactionRunner) that
 * first locks the stock_level rows of the item in the warehouses it touches,
 * in ascending warehouse order, and only then the lots: every writer of an
 * item's lots in a warehouse holds that row, so writers never deadlock one
 * another and never oversell. Lots, summary and ledger change together.
 */
@Injectable()
export class InventoryService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly idempotency: IdempotencyService,
    @InjectRepository(Item) private readonly items: Repository<Item>,
    private readonly warehouseNames: WarehouseNames,
  ) {}

  async receive(caller: Caller, dto: ReceiveDto, idem?: IdempotencyContext): Promise<ReceiveResult> {
    caller.assertWarehouses(dto.wid);
    const warehouse = await this.warehouseNames.one(dto.wid);
    return this.tx.run(async (m) => {
      // The item row is locked first: Receives (the only operation that raises
      // an item's total) are serialized per item, so the total read next is
      // not raised concurrently before this one commits.
      const item = await this.itemFor(dto.itemID, m);
      if (item.discontinued) throw new ItemDiscontinued(item.shortID);
      if (!withinDecimalMax(await this.itemTotal(m, item.partNo), dto.units)) throw new StockLimitExceeded(item.shortID, null);
      const now = new Date();
      const [level] = await this.lockLevels(m, item.partNo, [dto.wid], dto.wid);
      const lot = m.create(Lot, {
        partNo: item.partNo,
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
      await m.insert(Lot, lot);
      await this.adjust(m, item, level, dto.units, lot.hold ? dto.units : 0, now);
      await this.record(m, caller, idem, 'receive', item.partNo, dto, [
        { recNo: lot.recNo, fromRecNo: null, fromWid: null, fromSpot: null, toWid: dto.wid, toSpot: lot.spot, units: dto.units },
      ]);
      const result: ReceiveResult = { status: 'received', recNo: lot.recNo, lot: toLotResponse(lot, item, warehouse) };
      await this.idempotency.complete(m, idem, 201, result);
      return result;
    });
  }

  async issue(caller: Caller, dto: IssueDto, idem?: IdempotencyContext): Promise<IssueResult> {
    caller.assertWarehouses(dto.wid);
    const item = await this.itemFor(dto.itemID);
    return this.tx.run(async (m) => {
      const now = new Date();
      const [level] = await this.lockLevels(m, item.partNo, [dto.wid]);
      const lots = level ? await this.pick(m, item.partNo, dto.wid, { ...dto, includeHeld: false }) : [];
      const taken = take(lots, dto.units, item.shortID, dto.wid);
      const rows: LedgerRow[] = [];
      const result: IssueResult = { status: 'issued', units: dto.units, lots: [] };
      const whole: number[] = [];
      for (const { lot, units } of taken) {
        let recNo = lot.recNo;
        if (compareDecimal(units, lot.units) === 0) {
          whole.push(recNo);
        } else {
          // Issued in part (only ever the last lot taken): it keeps the rest, the part becomes a new archived lot.
          await m.update(Lot, { recNo }, { units: subtractDecimal(lot.units, units), modified: now });
          const part = m.create(Lot, { ...lot, recNo: undefined, units, shipped: now, active: false, modified: now });
          await m.insert(Lot, part);
          recNo = part.recNo;
        }
        rows.push({ recNo, fromRecNo: lot.recNo, fromWid: dto.wid, fromSpot: lot.spot, toWid: null, toSpot: null, units });
        result.lots.push({ recNo, fromRecNo: lot.recNo, units });
      }
      // Lots issued whole are archived in place, their units kept as the issued quantity.
      for (const recNos of chunks(whole)) await m.update(Lot, { recNo: In(recNos) }, { shipped: now, active: false, modified: now });
      await this.adjust(m, item, level!, -dto.units, 0, now);
      await this.record(m, caller, idem, 'issue', item.partNo, dto, rows);
      await this.idempotency.complete(m, idem, 200, result);
      return result;
    });
  }

  async move(caller: Caller, dto: MoveDto, idem?: IdempotencyContext): Promise<MoveResult> {
    const dest = dto.shipToWid ?? dto.wid;
    if (dest === dto.wid && (dto.toSpot === undefined || dto.toSpot === dto.fromSpot)) {
      throw new ValidationFailed({ toSpot: ['the destination must differ from the source: give shipToWid or a toSpot other than fromSpot'] });
    }
    caller.assertWarehouses(dto.wid, dto.shipToWid);
    const item = await this.itemFor(dto.itemID);
    return this.tx.run(async (m) => {
      const now = new Date();
      const [source, target] = await this.lockLevels(m, item.partNo, [dto.wid, dest], dest);
      const selectors: Selectors = {
        recno: dto.recno,
        spot: dto.fromSpot,
        serial: dto.serial,
        serial2: dto.serial2,
        rfidTag: dto.rfidTag,
        receivedOn: dto.received,
        includeHeld: true,
        notAtSpot: dest === dto.wid ? dto.toSpot : undefined,
      };
      const lots = source ? await this.pick(m, item.partNo, dto.wid, selectors) : [];
      const taken = take(lots, dto.units, item.shortID, dto.wid);
      const rows: LedgerRow[] = [];
      const result: MoveResult = { status: 'moved', units: dto.units, lots: [] };
      let held = 0;
      const whole: number[] = [];
      for (const { lot, units } of taken) {
        const spot = dto.toSpot ?? lot.spot;
        let recNo = lot.recNo;
        if (compareDecimal(units, lot.units) === 0) {
          whole.push(recNo);
        } else {
          // A part moved becomes a new lot carrying the source's received date, serials, remark and hold.
          await m.update(Lot, { recNo }, { units: subtractDecimal(lot.units, units), modified: now });
          const part = m.create(Lot, { ...lot, recNo: undefined, wID: dest, spot, units, modified: now });
          await m.insert(Lot, part);
          recNo = part.recNo;
        }
        if (lot.hold) held = addDecimal(held, units);
        rows.push({ recNo, fromRecNo: lot.recNo, fromWid: dto.wid, fromSpot: lot.spot, toWid: dest, toSpot: spot, units });
        result.lots.push({ recNo, fromRecNo: lot.recNo, units, wid: dest, spot });
      }
      // Lots moved whole keep their recNo; without a toSpot each keeps its own spot.
      const to = dto.toSpot === undefined ? { wID: dest } : { wID: dest, spot: dto.toSpot };
      for (const recNos of chunks(whole)) await m.update(Lot, { recNo: In(recNos) }, { ...to, modified: now });
      if (dest !== dto.wid) {
        await this.adjust(m, item, source!, -dto.units, -held, now);
        await this.adjust(m, item, target!, dto.units, held, now);
      } else {
        await this.adjust(m, item, source!, 0, 0, now);
      }
      await this.record(m, caller, idem, 'move', item.partNo, dto, rows);
      await this.idempotency.complete(m, idem, 200, result);
      return result;
    });
  }

  /** Referenced item: unknown → validation_error on itemID (DECISIONS "Inventory"). Within a transaction `m`, read and locked. */
  private async itemFor(itemID: string, m?: EntityManager): Promise<Item> {
    const item = m
      ? await this.tx.forUpdate(m.getRepository(Item).createQueryBuilder('item').where('item.shortIdKey = :key', { key: caseKey(itemID) })).getOne()
      : await this.items.findOneBy({ shortIdKey: caseKey(itemID) });
    if (!item) throw new ValidationFailed({ itemID: [`itemID "${itemID}" does not name an item`] });
    return item;
  }

  /** The item's units in stock across every warehouse, exactly (as ten-thousandths: stored data may pass the input bound). */
  private async itemTotal(m: EntityManager, partNo: number): Promise<bigint> {
    const row = await m.getRepository(StockLevel).createQueryBuilder('s').select('SUM(s.inStock)', 'total').where('s.partNo = :partNo', { partNo }).getRawOne<{ total: string | number | null }>();
    return row?.total === null || row?.total === undefined ? 0n : storedTenThousandths(row.total);
  }

  /**
   * Locks the item's stock_level rows for these warehouses, ascending, creating
   * the one for `create` if it is missing (inside the transaction, so a failed
   * move leaves no empty row). Returns them in the order asked, null if absent.
   *
   * Creating a row first locks the item row, before any stock_level row: the
   * creators of an item's rows are serialized, so each new row is counted once
   * in stock_count (per warehouse, and in scope 0 when it is the item's first),
   * and the lock order item → stock_level (ascending) holds for every writer.
   */
  private async lockLevels(m: EntityManager, partNo: number, wids: number[], create?: number): Promise<Array<StockLevel | null>> {
    if (create !== undefined && wids.length === 1) {
      // Receive (one warehouse) locks its row straight away when it exists; when it is
      // missing no lock is held yet, so the item can be locked first to create it.
      const level = await this.lockLevel(m, partNo, create);
      if (level) return [level];
      await this.createLevel(m, partNo, create);
    } else if (create !== undefined && !(await m.existsBy(StockLevel, { partNo, wID: create }))) {
      await this.createLevel(m, partNo, create);
    }
    const found = new Map<number, StockLevel>();
    for (const wID of [...new Set(wids)].sort((a, b) => a - b)) {
      const level = await this.lockLevel(m, partNo, wID);
      if (level) found.set(wID, level);
    }
    return wids.map((w) => found.get(w) ?? null);
  }

  private lockLevel(m: EntityManager, partNo: number, wID: number): Promise<StockLevel | null> {
    return this.tx.forUpdate(m.getRepository(StockLevel).createQueryBuilder('s').where('s.partNo = :partNo AND s.wID = :wID', { partNo, wID })).getOne();
  }

  /** Locks the item, then creates the row (unless a transaction that held the lock before did) and counts it. */
  private async createLevel(m: EntityManager, partNo: number, wID: number): Promise<void> {
    await this.tx.forUpdate(m.getRepository(Item).createQueryBuilder('item').select('item.partNo').where('item.partNo = :partNo', { partNo })).getOne();
    const existing = await m.find(StockLevel, { where: { partNo }, select: { wID: true } });
    if (existing.some((l) => l.wID === wID)) return;
    await m.insert(StockLevel, { partNo, wID, inStock: 0, onHold: 0, modified: new Date() });
    // Scope 0 (any warehouse) before the warehouse's own: every creator takes the counter rows in one order.
    if (!existing.length) await this.countLevel(m, 0);
    await this.countLevel(m, wID);
  }

  private countLevel(m: EntityManager, scope: number): Promise<unknown> {
    return upsertIncrement(m, 'stock_count', 'scope', scope, 'items');
  }

  /** In-stock lots of the item in the warehouse matching every selector given, oldest first, locked. */
  private pick(m: EntityManager, partNo: number, wid: number, s: Selectors): Promise<Lot[]> {
    const qb = m.getRepository(Lot).createQueryBuilder('lot').where('lot.partNo = :partNo AND lot.wID = :wid AND lot.active = 1', { partNo, wid });
    if (!s.includeHeld) qb.andWhere('lot.hold = 0');
    if (s.recno !== undefined) qb.andWhere('lot.recNo = :recno', { recno: s.recno });
    if (s.spot !== undefined) qb.andWhere('lot.spot = :spot', { spot: s.spot });
    if (s.serial !== undefined) qb.andWhere('lot.serial = :serial', { serial: s.serial });
    if (s.serial2 !== undefined) qb.andWhere('lot.serial2 = :serial2', { serial2: s.serial2 });
    if (s.rfidTag !== undefined) qb.andWhere('lot.rFIDTag = :rfid', { rfid: s.rfidTag });
    if (s.notAtSpot !== undefined) qb.andWhere('lot.spot <> :notAt', { notAt: s.notAtSpot });
    if (s.receivedOn) {
      const day = new Date(Date.UTC(s.receivedOn.getUTCFullYear(), s.receivedOn.getUTCMonth(), s.receivedOn.getUTCDate()));
      qb.andWhere('lot.received >= :dayStart AND lot.received < :dayEnd', { dayStart: day, dayEnd: new Date(day.getTime() + 86_400_000) });
    }
    qb.orderBy('lot.received', 'ASC').addOrderBy('lot.recNo', 'ASC');
    return this.tx.forUpdate(qb).getMany();
  }

  private async adjust(m: EntityManager, item: Item, level: StockLevel | null, inStock: number, onHold: number, now: Date): Promise<void> {
    if (!level) return;
    if (!withinDecimalMax(storedTenThousandths(level.inStock), inStock)) throw new StockLimitExceeded(item.shortID, level.wID);
    const next = { inStock: addDecimal(level.inStock, inStock), onHold: addDecimal(level.onHold, onHold) };
    await m.update(StockLevel, { partNo: level.partNo, wID: level.wID }, { ...next, modified: now });
  }

  private async record(
    m: EntityManager,
    caller: Caller,
    idem: IdempotencyContext | undefined,
    operation: LedgerEntry['operation'],
    partNo: number,
    dto: ReceiveDto | IssueDto | MoveDto,
    rows: LedgerRow[],
  ): Promise<void> {
    const { itemID: _i, wid: _w, units: _u, reference, ...rest } = dto as ReceiveDto & IssueDto & MoveDto;
    const { reasonCode, remark, ...extra } = rest;
    const extraJson = Object.keys(extra).length ? JSON.stringify(extra) : null;
    const created = new Date();
    const operationId = randomUUID();
    const entries = rows.map((row) => ({
      ...row,
      operationId,
      operation,
      partNo,
      reasonCode: reasonCode ?? null,
      reference: reference ?? '',
      remark: remark ?? '',
      extra: extraJson,
      clientId: caller.clientId,
      idempotencyKey: idem?.key ?? null,
      created,
    }));
    for (const chunk of chunks(entries)) await m.insert(LedgerEntry, chunk);
  }
}

/** Takes `units` from the lots in order; not enough → 409 with nothing changed. */
function take(lots: Lot[], units: number, shortId: string, wid: number): Array<{ lot: Lot; units: number }> {
  const available = sumDecimals(lots.map((l) => l.units));
  if (compareDecimal(available, units) < 0) throw new InsufficientStock(shortId, wid, units, available);
  const taken: Array<{ lot: Lot; units: number }> = [];
  let remaining = units;
  for (const lot of lots) {
    if (compareDecimal(remaining, 0) <= 0) break;
    const part = compareDecimal(lot.units, remaining) <= 0 ? lot.units : remaining;
    taken.push({ lot, units: part });
    remaining = subtractDecimal(remaining, part);
  }
  return taken;
}
