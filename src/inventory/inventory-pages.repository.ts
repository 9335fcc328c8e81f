import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import type { Consistency } from '../database/list-reads.js';
import { columnList, columnReaders, toEntity } from '../database/statements.js';
import { type JoinedRows, joinedStatement, MAX_PAGE_SIZE, type Page, paginate, type PageSpec, type SortIndexHints } from '../pagination/page.js';
import type { PageQuery } from '../pagination/page-request.js';
import { LedgerEntry, Lot } from './inventory.entities.js';
import { ledgerTotalStatement, lotTotalStatement } from './list-counts.js';
import { WarehouseLists } from './warehouse-lists.js';

/** How a lot page sorts and pages (its columns are this repository's statement's). */
export const LOT_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { recNo: 'lot.recNo', received: 'lot.received', shortID: 'lot.shortIdKey', partNo: 'lot.partNo', spot: 'lot.spot', units: 'lot.units', modified: 'lot.modified' },
  defaultSort: { column: 'lot.received', direction: 'DESC' },
  tiebreak: 'lot.recNo',
  modifiedColumn: 'lot.modified',
  decimals: ['lot.units'],
  plainOrder: ['lot.recNo', 'lot.received', 'lot.partNo', 'lot.modified'],
};

/**
 * The lot page's SortIndexHints (paginate): for each sort, the index that reads
 * it over every warehouse together and the warehouse's own first (warehouse
 * by warehouse, the cheap one for a scope of small warehouses); the
 * optimizer chooses between the two. Without them MariaDB estimates
 * `wID IN (…)` in each of the seven indexes that start with `wID` before
 * every page, about half the keys' statement at 1,000,000 lots
 * (docs/quality.md). The names are the migrations'; the query-plan spec
 * reads every sort through them.
 */
export const LOT_PAGE_INDEXES = {
  'lot.recNo': ['PRIMARY', 'IX_lot_wID_recNo'],
  'lot.received': ['IX_lot_received_recNo_wID', 'IX_lot_wID_received'],
  'lot.shortIdKey': ['IX_lot_shortIdKey_recNo_wID', 'IX_lot_wID_shortIdKey_recNo'],
  'lot.partNo': ['IX_lot_partNo_recNo_wID', 'IX_lot_wID_partNo_recNo'],
  'lot.spot': ['IX_lot_spot_recNo_wID', 'IX_lot_wID_spot_recNo'],
  'lot.units': ['IX_lot_units_recNo_wID', 'IX_lot_wID_units_recNo'],
  'lot.modified': ['IX_lot_modified_recNo_wID', 'IX_lot_wID_modified_recNo'],
} as const satisfies SortIndexHints;

/** How a ledger page sorts and pages. */
export const LEDGER_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { id: 'e.id', created: 'e.created', partNo: 'e.partNo' },
  defaultSort: { column: 'e.id', direction: 'ASC' },
  tiebreak: 'e.id',
  modifiedColumn: 'e.created',
};

/** The lot columns a lot page sends (toLotResponse); the rest of the row is neither read nor converted. */
const LOT_PAGE_FIELDS = ['recNo', 'partNo', 'wID', 'spot', 'units', 'received', 'shipped', 'serial', 'serial2', 'rFIDTag', 'remark', 'hold', 'jobID', 'jobName', 'associate', 'active'] as const;

/** A lot as a lot page reads it: the columns it sends. */
export type LotPageRow = Pick<Lot, (typeof LOT_PAGE_FIELDS)[number]>;

/** A lot of a page with its item's shortID and description, as the caller answers it. */
export type LotAnswer<R> = (lot: LotPageRow, itemShortID: string, itemDescription: string) => R;

/** What a lot or ledger page is filtered by besides its warehouses: the item (shortID), when given. */
export interface ItemFilter {
  itemID?: string;
}

/**
 * The lot and ledger pages (GET /Inventory[/<wid>], /Inventory/Transactions),
 * each started by WarehouseLists (warehouse-lists.ts: where it is read, the
 * item filter, a list that can hold nothing, its cursors), then, paged by
 * `paginate` (pagination/page.ts), the total (from the counters unless a
 * filter narrows the list, else counted), the page's keys and its rows, with
 * the page's items.
 */
@Injectable()
export class InventoryPagesRepository {
  constructor(
    private readonly lists: WarehouseLists,
    private readonly items: ItemLocksRepository,
  ) {}

  /**
   * A page of the lots in these warehouses (of the item filtered by, when
   * given), each lot with its item's shortID and description turned into the
   * caller's answer as it is read. `answers` gives that answer; it is called
   * once the list is known to hold something, before the page is read.
   */
  lotPage<R>(consistency: Consistency, wids: number[], filter: ItemFilter, query: PageQuery, answers: () => Promise<LotAnswer<R>>): Promise<Page<R>> {
    return this.lists.read(consistency, LOT_PAGES, query, { name: 'lots', wids, itemID: filter.itemID }, async ({ m, request, partNo, list }) => {
      // The lot counters answer unless a filter narrows the list: then the item's or the modified index's range is counted.
      const total = partNo === undefined && !request.modifiedSince ? lotTotalStatement(wids) : undefined;
      const answer = await answers();
      const qb = m.createQueryBuilder(Lot, 'lot').where('lot.wID IN (:...wids)', { wids });
      if (partNo !== undefined) qb.andWhere('lot.partNo = :partNo', { partNo });
      // An item's lots are read from the item's index, not the sort's.
      const sortIndexes = partNo === undefined ? LOT_PAGE_INDEXES : undefined;
      return paginate(m, qb, query, LOT_PAGES, { ...list, total, joined: lotAnswers(m, answer), sortIndexes });
    });
  }

  /** A page of the ledger rows out of or into these warehouses (of the item filtered by, when given), each with its item's shortID turned into the caller's answer. */
  ledgerPage<R>(consistency: Consistency, wids: number[], filter: ItemFilter, query: PageQuery, answer: (entry: LedgerEntry, itemShortID: string) => R): Promise<Page<R>> {
    return this.lists.read(consistency, LEDGER_PAGES, query, { name: 'ledger', wids, itemID: filter.itemID }, async ({ m, request, partNo, list }) => {
      const total = partNo === undefined && !request.modifiedSince ? ledgerTotalStatement(wids) : undefined;
      const qb = m.createQueryBuilder(LedgerEntry, 'e').where('(e.fromWid IN (:...wids) OR e.toWid IN (:...wids))', { wids });
      if (partNo !== undefined) qb.andWhere('e.partNo = :partNo', { partNo });
      const page = await paginate(m, qb, query, LEDGER_PAGES, { ...list, total });
      const items = await this.items.names(m, page.value.map((e) => e.partNo));
      return page.map((e) => answer(e, items.get(e.partNo)?.shortID ?? ''));
    });
  }
}

/**
 * The answers for the lots of a page (paginate's JoinedRows): the page's keys
 * joined to their lots and items by primary key in the statement that reads
 * the keys, each row read into its answer at once. Only the columns the page
 * sends are read; the query builder's entity hydration and a statement of
 * their own for the rows would cost a 250-lot page several times the
 * statement itself. The join starts from the keys (joinedStatement), not
 * from the items.
 */
function lotAnswers<R>(m: EntityManager, answer: LotAnswer<R>): JoinedRows<R> {
  const q = (name: string) => m.connection.driver.escape(name);
  const columns = `${columnList(m, Lot, 'lot', LOT_PAGE_FIELDS)}, i.${q('shortID')} AS itemShortID, i.${q('description')} AS itemDescription`;
  const joins = `JOIN ${q('lot')} lot ON lot.${q('recNo')} = k.k JOIN ${q('item')} i ON i.${q('partNo')} = lot.${q('partNo')}`;
  const read = columnReaders(m, Lot, LOT_PAGE_FIELDS);
  return {
    statement: (keys, value) => joinedStatement(m, keys, value, columns, joins),
    // Each row into one object of one shape, property by property (statements.ts columnReaders: what toEntity would give).
    row: (r) =>
      answer(
        {
          recNo: read.recNo(r.recNo),
          partNo: read.partNo(r.partNo),
          wID: read.wID(r.wID),
          spot: read.spot(r.spot),
          units: read.units(r.units),
          received: read.received(r.received),
          shipped: read.shipped(r.shipped),
          serial: read.serial(r.serial),
          serial2: read.serial2(r.serial2),
          rFIDTag: read.rFIDTag(r.rFIDTag),
          remark: read.remark(r.remark),
          hold: read.hold(r.hold),
          jobID: read.jobID(r.jobID),
          jobName: read.jobName(r.jobName),
          associate: read.associate(r.associate),
          active: read.active(r.active),
        },
        r.itemShortID as string,
        r.itemDescription as string,
      ),
  };
}
