import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { Item } from '../catalog/catalog.entities.js';
import { caseKey } from '../database/case-key.js';
import { fromTenThousandths, storedTenThousandths } from '../quantity.js';
import { DomainError } from '../errors.js';
import { MAX_PAGE_SIZE, Page, paginate, resolvePage, type PageSpec } from '../pagination/page.js';
import type { PageQueryDto } from '../pagination/page-query.dto.js';
import type { LotQueryDto } from './inventory.dto.js';
import { type LotResponseDto, type StockLevelResponseDto, toLotResponse, toTransactionResponse, type TransactionResponseDto } from './inventory.responses.js';
import { LedgerEntry, Lot, StockLevel } from './inventory.entities.js';
import { ledgerTotal, lotTotal, stockTotal } from './list-counts.js';
import { WarehouseNames } from './warehouse-names.js';

export class WarehouseNotFound extends DomainError {
  constructor(raw: string) {
    super('not_found', `No warehouse ${raw.slice(0, 20)}.`);
  }
}

const LOT_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { recNo: 'lot.recNo', received: 'lot.received', shortID: 'item.shortIdKey', partNo: 'lot.partNo', spot: 'lot.spot', units: 'lot.units', modified: 'lot.modified' },
  defaultSort: { column: 'lot.received', direction: 'DESC' },
  tiebreak: 'lot.recNo',
  modifiedColumn: 'lot.modified',
};

const STOCK_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { partNo: 's.partNo', shortID: 'item.shortIdKey', available: 'available', inStock: 'inStock', onHold: 'onHold' },
  defaultSort: { column: 's.partNo', direction: 'ASC' },
  tiebreak: 's.partNo',
  modifiedColumn: 's.modified',
};

const LEDGER_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { id: 'e.id', created: 'e.created', partNo: 'e.partNo' },
  defaultSort: { column: 'e.id', direction: 'ASC' },
  tiebreak: 'e.id',
  modifiedColumn: 'e.created',
};

/** GET /Inventory, /Inventory/<wid>, /Inventory/StockLevels[/<wid>] and the ledger; always within the caller's warehouses. */
@Injectable()
export class InventoryQueries {
  constructor(
    @InjectRepository(Lot) private readonly lots: Repository<Lot>,
    @InjectRepository(StockLevel) private readonly levels: Repository<StockLevel>,
    @InjectRepository(LedgerEntry) private readonly ledger: Repository<LedgerEntry>,
    @InjectRepository(Item) private readonly items: Repository<Item>,
    private readonly warehouseNames: WarehouseNames,
  ) {}

  /** The warehouses a list covers: the one named (in scope, else 403), or all of the caller's. */
  scope(caller: Caller, rawWid?: string): number[] {
    if (rawWid === undefined) return [...caller.warehouses];
    const wid = /^\d{1,10}$/.test(rawWid) ? Number(rawWid) : 0;
    if (wid < 1 || wid > 2_147_483_647) throw new WarehouseNotFound(rawWid);
    caller.assertWarehouses(wid);
    return [wid];
  }

  async lotPage(wids: number[], query: LotQueryDto): Promise<Page<LotResponseDto>> {
    const request = resolvePage(query, LOT_PAGES);
    const partNo = query.itemID === undefined ? undefined : await this.partNoOf(query.itemID);
    if (!wids.length || partNo === null) return new Page([], 0, request);
    const qb = this.lots.createQueryBuilder('lot').where('lot.wID IN (:...wids)', { wids });
    // The item is joined only to sort by shortID: joined, MySQL would sort every lot instead of walking an index.
    if (request.order.some(([column]) => column.startsWith('item.'))) qb.innerJoin(Item, 'item', 'item.partNo = lot.partNo');
    if (partNo !== undefined) qb.andWhere('lot.partNo = :partNo', { partNo });
    // The lot counters answer unless a filter narrows the list: then the item's or the modified index's range is counted.
    const total = partNo === undefined && !request.modifiedSince ? await lotTotal(this.lots.manager, wids) : undefined;
    const page = await paginate(qb, query, LOT_PAGES, total);
    const [items, names] = await Promise.all([this.itemsOf(page.value.map((l) => l.partNo)), this.warehouseNames.of(page.value.map((l) => l.wID))]);
    return page.map((lot) => toLotResponse(lot, items.get(lot.partNo)!, names.get(lot.wID) ?? ''));
  }

  /**
   * One row per item that has had a lot in these warehouses, summed over them,
   * read from the stock_level summary. In the default order (partNo) the page
   * is grouped straight off the primary key and only its items are joined, and
   * totalCount comes from counters (stockTotal): the cost follows the page,
   * not the lots. Sorting by a sum or by shortID, a `modifiedSince` filter, or
   * a scope of some but not all warehouses has to aggregate every item in scope.
   */
  async stockPage(wids: number[], query: PageQueryDto): Promise<Page<StockLevelResponseDto>> {
    const request = resolvePage(query, STOCK_PAGES);
    if (!wids.length) return new Page([], 0, request);
    const { allWarehouses, totalCount } = await this.stockTotal(wids, request.modifiedSince);
    if (request.offset >= totalCount) return new Page([], totalCount, request);
    const qb = this.levels
      .createQueryBuilder('s')
      .select('s.partNo', 'partNo')
      .addSelect('SUM(s.inStock)', 'inStock')
      .addSelect('SUM(s.onHold)', 'onHold')
      .addSelect('SUM(s.inStock) - SUM(s.onHold)', 'available')
      .groupBy('s.partNo');
    // Every warehouse in scope: no filter, so the groups come straight off the primary key in partNo order.
    if (!allWarehouses) qb.where('s.wID IN (:...wids)', { wids });
    if (request.order.some(([column]) => column.startsWith('item.'))) qb.innerJoin(Item, 'item', 'item.partNo = s.partNo').addGroupBy('item.shortIdKey');
    if (request.modifiedSince) qb.having('MAX(s.modified) >= :since', { since: request.modifiedSince });
    request.order.forEach(([column, direction], i) => (i === 0 ? qb.orderBy(column, direction) : qb.addOrderBy(column, direction)));
    const rows = await qb.offset(request.offset).limit(request.pageSize).getRawMany<{ partNo: number; inStock: string | number; onHold: string | number }>();
    const items = await this.itemsOf(rows.map((r) => Number(r.partNo)));
    return new Page(
      rows.map((r): StockLevelResponseDto => {
        // Sums of stored values, exact as ten-thousandths whatever their size: no stored data can make a list fail.
        const inStock = storedTenThousandths(r.inStock);
        const onHold = storedTenThousandths(r.onHold);
        const partNo = Number(r.partNo);
        // No order modules yet: committed, packed, onOrder and aSN are 0 (DECISIONS "Inventory").
        return {
          partNo,
          shortID: items.get(partNo)?.shortID ?? '',
          available: fromTenThousandths(inStock - onHold),
          inStock: fromTenThousandths(inStock),
          onOrder: 0,
          onHold: fromTenThousandths(onHold),
          committed: 0,
          packed: 0,
          aSN: 0,
        };
      }),
      totalCount,
      request,
    );
  }

  /**
   * Items with a stock_level row in these warehouses (modified since, if asked),
   * and whether the scope is every warehouse. Without `modifiedSince`: one
   * warehouse or all of them from stock_count, some of them from the stock-set
   * counters; otherwise counted.
   */
  private async stockTotal(wids: number[], modifiedSince: Date | null): Promise<{ allWarehouses: boolean; totalCount: number }> {
    const [row] = await this.levels.query(
      'SELECT (SELECT COUNT(*) FROM warehouse) AS warehouses, (SELECT items FROM stock_count WHERE scope = 0) AS anyWarehouse, (SELECT items FROM stock_count WHERE scope = ?) AS oneWarehouse',
      [wids[0]],
    );
    // The caller's warehouses are distinct and exist: as many as there are means all of them.
    const allWarehouses = wids.length === Number(row.warehouses);
    if (!modifiedSince && wids.length === 1) return { allWarehouses, totalCount: Number(row.oneWarehouse ?? 0) };
    if (!modifiedSince && allWarehouses) return { allWarehouses, totalCount: Number(row.anyWarehouse ?? 0) };
    const fromSets = modifiedSince ? null : await stockTotal(this.levels.manager, wids);
    if (fromSets !== null) return { allWarehouses, totalCount: fromSets };
    const qb = this.levels.createQueryBuilder('s').select('COUNT(DISTINCT s.partNo)', 'n');
    if (!allWarehouses) qb.where('s.wID IN (:...wids)', { wids });
    if (modifiedSince) qb.andWhere('s.modified >= :since', { since: modifiedSince });
    return { allWarehouses, totalCount: Number((await qb.getRawOne<{ n: string | number }>())?.n ?? 0) };
  }

  /** GET /Inventory/Transactions (extension): ledger rows touching the caller's warehouses. */
  async ledgerPage(wids: number[], query: LotQueryDto): Promise<Page<TransactionResponseDto>> {
    const request = resolvePage(query, LEDGER_PAGES);
    const partNo = query.itemID === undefined ? undefined : await this.partNoOf(query.itemID);
    if (!wids.length || partNo === null) return new Page([], 0, request);
    const qb = this.ledger.createQueryBuilder('e').where('(e.fromWid IN (:...wids) OR e.toWid IN (:...wids))', { wids });
    if (partNo !== undefined) qb.andWhere('e.partNo = :partNo', { partNo });
    const total = partNo === undefined && !request.modifiedSince ? await ledgerTotal(this.ledger.manager, wids) : undefined;
    const page = await paginate(qb, query, LEDGER_PAGES, total);
    const items = await this.itemsOf(page.value.map((e) => e.partNo));
    return page.map((e) => toTransactionResponse(e, items.get(e.partNo)?.shortID ?? ''));
  }

  /** An item filter that names no item matches nothing. */
  private async partNoOf(shortId: string): Promise<number | null> {
    return (await this.items.findOne({ where: { shortIdKey: caseKey(shortId) }, select: { partNo: true } }))?.partNo ?? null;
  }

  private async itemsOf(partNos: number[]): Promise<Map<number, Item>> {
    if (!partNos.length) return new Map();
    const found = await this.items.find({ where: { partNo: In([...new Set(partNos)]) }, select: { partNo: true, shortID: true, description: true } });
    return new Map(found.map((i) => [i.partNo, i]));
  }
}
