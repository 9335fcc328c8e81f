import { Injectable } from '@nestjs/common';
import { type EntityManager, In } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { Item } from '../catalog/catalog.entities.js';
import { caseKey } from '../database/case-key.js';
import { columnList, rows, toEntity } from '../database/statements.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { DomainError } from '../errors.js';
import { PageCursors } from '../pagination/cursor.js';
import { type ListPaging, MAX_PAGE_SIZE, Page, paginate, requestedCursor, resolvePage, type PageSpec } from '../pagination/page.js';
import type { PageQueryDto } from '../pagination/page-query.dto.js';
import type { LotQueryDto } from './inventory.dto.js';
import { type LotResponseDto, type StockLevelResponseDto, toLotResponse, toTransactionResponse, type TransactionResponseDto } from './inventory.responses.js';
import { LedgerEntry, Lot } from './inventory.entities.js';
import { ledgerTotalStatement, lotTotalStatement } from './list-counts.js';
import { StockLevelPages } from './stock-level-pages.js';
import { WarehouseNames } from './warehouse-names.js';

export class WarehouseNotFound extends DomainError {
  constructor(raw: string) {
    super('not_found', `No warehouse ${raw.slice(0, 20)}.`);
  }
}

const LOT_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { recNo: 'lot.recNo', received: 'lot.received', shortID: 'lot.shortIdKey', partNo: 'lot.partNo', spot: 'lot.spot', units: 'lot.units', modified: 'lot.modified' },
  defaultSort: { column: 'lot.received', direction: 'DESC' },
  tiebreak: 'lot.recNo',
  modifiedColumn: 'lot.modified',
  decimals: ['lot.units'],
};

const LEDGER_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { id: 'e.id', created: 'e.created', partNo: 'e.partNo' },
  defaultSort: { column: 'e.id', direction: 'ASC' },
  tiebreak: 'e.id',
  modifiedColumn: 'e.created',
};

/** GET /Inventory, /Inventory/<wid>, /Inventory/StockLevels[/<wid>] and the ledger; always within the caller's warehouses, each read where ListReads sends it. */
@Injectable()
export class InventoryQueries {
  constructor(
    private readonly reads: ListReads,
    private readonly warehouseNames: WarehouseNames,
    private readonly stock: StockLevelPages,
    private readonly cursors: PageCursors,
  ) {}

  /** The warehouses a list covers: the one named (in scope, else 403), or all of the caller's. */
  scope(caller: Caller, rawWid?: string): number[] {
    if (rawWid === undefined) return [...caller.warehouses];
    const wid = /^\d{1,10}$/.test(rawWid) ? Number(rawWid) : 0;
    if (wid < 1 || wid > 2_147_483_647) throw new WarehouseNotFound(rawWid);
    caller.assertWarehouses(wid);
    return [wid];
  }

  lotPage(wids: number[], query: LotQueryDto, consistency: Consistency): Promise<Page<LotResponseDto>> {
    return this.reads.run(consistency, async (m) => {
      const request = resolvePage(query, LOT_PAGES);
      const partNo = query.itemID === undefined ? undefined : await partNoOf(m, query.itemID);
      const list = this.paging('lots', wids, partNo);
      if (!wids.length || partNo === null) {
        // A list that can hold nothing still refuses a cursor that is not its own.
        requestedCursor(query, request, list);
        return new Page<LotResponseDto>([], 0, request);
      }
      const qb = m.createQueryBuilder(Lot, 'lot').where('lot.wID IN (:...wids)', { wids });
      if (partNo !== undefined) qb.andWhere('lot.partNo = :partNo', { partNo });
      // The lot counters answer unless a filter narrows the list: then the item's or the modified index's range is counted.
      const total = partNo === undefined && !request.modifiedSince ? lotTotalStatement(wids) : undefined;
      // The names of the warehouses in scope (kept in memory once read), so that each row becomes its answer as it is read.
      const names = await this.warehouseNames.of(wids);
      return paginate(qb, query, LOT_PAGES, { ...list, total, rows: (keys) => lotAnswers(m, keys, names) });
    });
  }

  stockPage(wids: number[], query: PageQueryDto, consistency: Consistency): Promise<Page<StockLevelResponseDto>> {
    return this.reads.run(consistency, (m) => this.stock.page(m, wids, query));
  }

  /** GET /Inventory/Transactions (extension): ledger rows touching the caller's warehouses. */
  ledgerPage(wids: number[], query: LotQueryDto, consistency: Consistency): Promise<Page<TransactionResponseDto>> {
    return this.reads.run(consistency, async (m) => {
      const request = resolvePage(query, LEDGER_PAGES);
      const partNo = query.itemID === undefined ? undefined : await partNoOf(m, query.itemID);
      const list = this.paging('ledger', wids, partNo);
      if (!wids.length || partNo === null) {
        requestedCursor(query, request, list);
        return new Page<TransactionResponseDto>([], 0, request);
      }
      const qb = m.createQueryBuilder(LedgerEntry, 'e').where('(e.fromWid IN (:...wids) OR e.toWid IN (:...wids))', { wids });
      if (partNo !== undefined) qb.andWhere('e.partNo = :partNo', { partNo });
      const total = partNo === undefined && !request.modifiedSince ? ledgerTotalStatement(wids) : undefined;
      const page = await paginate(qb, query, LEDGER_PAGES, { ...list, total });
      const items = await itemsOf(m, page.value.map((e) => e.partNo));
      return page.map((e) => toTransactionResponse(e, items.get(e.partNo)?.shortID ?? ''));
    });
  }

  /** How a list of these warehouses (and item) pages: a cursor is the list's only with the same scope and item. */
  private paging(name: string, wids: number[], partNo: number | null | undefined): ListPaging {
    return { cursors: this.cursors, filters: [name, [...wids].sort((a, b) => a - b), partNo === null ? 'no such item' : (partNo ?? null)] };
  }

}

/** An item filter that names no item matches nothing. */
async function partNoOf(m: EntityManager, shortId: string): Promise<number | null> {
  return (await m.findOne(Item, { where: { shortIdKey: caseKey(shortId) }, select: { partNo: true } }))?.partNo ?? null;
}

/** The lot columns a lot page sends (toLotResponse); the rest of the row is neither read nor converted. */
const LOT_PAGE_FIELDS = ['recNo', 'partNo', 'wID', 'spot', 'units', 'received', 'shipped', 'serial', 'serial2', 'rFIDTag', 'remark', 'hold', 'jobID', 'jobName', 'associate', 'active'] as const;

/**
 * The answers for the lots of a page's keys, by String(recNo): the lots with
 * their items' shortID and description, in one hand-written statement (a
 * join by primary keys), each row read into its answer at once. The query
 * builder's entity hydration and a second query for the items cost a 250-lot
 * page several times the statement itself. Only the columns the page sends
 * are read.
 */
async function lotAnswers(m: EntityManager, recNos: unknown[], warehouses: Map<number, string>): Promise<Map<string, LotResponseDto>> {
  const q = (name: string) => m.connection.driver.escape(name);
  const found = await rows(
    m,
    `SELECT ${columnList(m, Lot, 'l', LOT_PAGE_FIELDS)}, i.${q('shortID')} AS itemShortID, i.${q('description')} AS itemDescription` +
      ` FROM ${q('lot')} l JOIN ${q('item')} i ON i.${q('partNo')} = l.${q('partNo')} WHERE l.${q('recNo')} IN (${recNos.map(() => '?').join(', ')})`,
    recNos,
  );
  const answers = new Map<string, LotResponseDto>();
  for (const row of found) {
    const lot = toEntity(m, Lot, row, LOT_PAGE_FIELDS);
    answers.set(String(lot.recNo), toLotResponse(lot, row.itemShortID as string, row.itemDescription as string, warehouses.get(lot.wID) ?? ''));
  }
  return answers;
}

async function itemsOf(m: EntityManager, partNos: number[]): Promise<Map<number, Item>> {
  if (!partNos.length) return new Map();
  const found = await m.find(Item, { where: { partNo: In([...new Set(partNos)]) }, select: { partNo: true, shortID: true, description: true } });
  return new Map(found.map((i) => [i.partNo, i]));
}
