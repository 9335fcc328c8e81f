import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Item } from '../catalog/catalog.entities.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { readCounts } from '../database/counters.js';
import { isMysql } from '../database/dialect.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { type CursorPosition, PageCursors } from '../pagination/cursor.js';
import { type ListPaging, pageWindow, seekCondition, type WindowRead } from '../pagination/keyset.js';
import { MAX_PAGE_SIZE, Page, type PageSpec, requestedCursor, resolvePage } from '../pagination/page.js';
import type { PagePosition, PageQuery, PageRequest } from '../pagination/page-request.js';
import { StockLevel } from './inventory.entities.js';
import { stockTotal } from './list-counts.js';

/** How a stock-level page sorts and pages (its columns are this repository's statements'). */
export const STOCK_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { partNo: 's.partNo', shortID: 'item.shortIdKey', available: 'available', inStock: 'inStock', onHold: 'onHold' },
  defaultSort: { column: 's.partNo', direction: 'ASC' },
  tiebreak: 's.partNo',
  modifiedColumn: 's.modified',
};

/** The sums a stock-level page of several warehouses sorts by: their expressions, for a cursor's condition (in HAVING). */
const SUMS: Record<string, string> = { inStock: 'SUM(s.inStock)', onHold: 'SUM(s.onHold)', available: 'SUM(s.available)' };
/** The figures a row of a page sends besides `available` and those it sorts by, summed over several warehouses. */
const FIGURES = ['committed', 'packed', 'onOrder', 'aSN'] as const;
/** The same of one warehouse: its own row's columns (`available` stored), each with an index (wID, column, partNo). */
const COLUMNS: Record<string, string> = { inStock: 's.inStock', onHold: 's.onHold', available: 's.available' };

/** A row of a stock-level page: an item and its figures over the warehouses asked for, as the database gave them. */
export interface StockRow {
  partNo: number;
  inStock: string | number;
  onHold: string | number;
  available: string | number;
  committed: string | number;
  packed: string | number;
  onOrder: string | number;
  aSN: string | number;
  shortIdKey?: string;
}

/**
 * GET /Inventory/StockLevels[/<wid>]: one row per item that has had a lot in
 * these warehouses, summed over them, read where ListReads sends it, every
 * statement through the one manager its `run` gives: the page's total, its
 * rows, then its items' shortIDs (ItemLocksRepository). StockLevelPages
 * (stock-level-pages.ts) makes the rows the answer.
 */
@Injectable()
export class StockLevelPagesRepository {
  constructor(
    private readonly reads: ListReads,
    private readonly cursors: PageCursors,
    private readonly items: ItemLocksRepository,
  ) {}

  /** A page of these warehouses' stock levels, each row with its item's shortID turned into the caller's answer. */
  page<R>(consistency: Consistency, wids: number[], query: PageQuery, answer: (row: StockRow, itemShortID: string) => R): Promise<Page<R>> {
    return this.reads.run(consistency, async (m) => {
      const request = resolvePage(query, STOCK_PAGES);
      const list = { cursors: this.cursors, filters: ['stock', [...wids].sort((a, b) => a - b)] };
      const at = requestedCursor(query, request, list);
      if (!wids.length) return new Page<R>([], 0, request);
      const { allWarehouses, totalCount } = await this.total(m, wids, request.modifiedSince);
      const { rows, placed, position } = await this.window(m, wids, allWarehouses, request, at, list, totalCount);
      const items = await this.items.shortIds(m, rows.map((r) => Number(r.partNo)));
      return new Page(
        rows.map((r) => answer(r, items.get(Number(r.partNo)) ?? '')),
        totalCount,
        placed,
        position,
      );
    });
  }

  /**
   * Items with a stock_level row in these warehouses (modified since, if asked),
   * and whether the scope is every warehouse. Without `modifiedSince`: one
   * warehouse or all of them from stock_count, some of them from the stock-set
   * counters; otherwise counted.
   */
  private async total(m: EntityManager, wids: number[], modifiedSince: Date | null): Promise<{ allWarehouses: boolean; totalCount: number }> {
    const [row] = await m.query(
      'SELECT (SELECT COUNT(*) FROM warehouse) AS warehouses, (SELECT items FROM stock_count WHERE scope = 0) AS anyWarehouse, (SELECT items FROM stock_count WHERE scope = ?) AS oneWarehouse',
      [wids[0]],
    );
    // The caller's warehouses are distinct and exist: as many as there are means all of them.
    const allWarehouses = wids.length === Number(row.warehouses);
    if (!modifiedSince && wids.length === 1) return { allWarehouses, totalCount: Number(row.oneWarehouse ?? 0) };
    if (!modifiedSince && allWarehouses) return { allWarehouses, totalCount: Number(row.anyWarehouse ?? 0) };
    const fromSets = modifiedSince ? null : stockTotal(await readCounts(m, 'stock'), wids);
    if (fromSets !== null) return { allWarehouses, totalCount: fromSets };
    const qb = m.createQueryBuilder(StockLevel, 's').select('COUNT(DISTINCT s.partNo)', 'n');
    if (!allWarehouses) qb.where('s.wID IN (:...wids)', { wids });
    if (modifiedSince) qb.andWhere('s.modified >= :since', { since: modifiedSince });
    return { allWarehouses, totalCount: Number((await qb.getRawOne<{ n: string | number }>())?.n ?? 0) };
  }

  /**
   * The page's rows (pageWindow, pagination/keyset.ts), summed over these
   * warehouses. In the default order (partNo) the page is grouped straight off
   * the primary key. Sorting by a sum or by shortID, a `modifiedSince` filter,
   * or a scope of some but not all warehouses has to aggregate every item in
   * scope. One warehouse is not grouped: its rows are the page, each order a
   * walk of an index (wID, column, partNo). By shortID the page's items are
   * read first, walking the item's unique index and keeping those with a stock
   * row in scope (by primary key), then their sums. A cursor seeks by a column
   * before grouping, by a sum after it.
   */
  private async window(
    m: EntityManager,
    wids: number[],
    allWarehouses: boolean,
    request: PageRequest,
    at: CursorPosition | null,
    list: ListPaging,
    totalCount: number,
  ): Promise<{ rows: StockRow[]; placed: Pick<PageRequest, 'page' | 'pageSize'>; position: PagePosition }> {
    const [[column, direction]] = request.order;
    const joined = column.startsWith('item.');
    const one = wids.length === 1;
    const sum = one ? undefined : SUMS[column];
    const sortBy = one ? (COLUMNS[column] ?? column) : column;
    const mysql = isMysql(m);
    const read = (w: WindowRead) => {
      if (joined) return itemsInShortIdOrder(m, w, direction, allWarehouses ? null : wids, request.modifiedSince);
      const qb = m.createQueryBuilder(StockLevel, 's').select('s.partNo', 'partNo');
      if (one) {
        qb.addSelect('s.inStock', 'inStock').addSelect('s.onHold', 'onHold').addSelect('s.available', 'available').where('s.wID = :wid', { wid: wids[0] });
        for (const figure of FIGURES) qb.addSelect(`s.${figure}`, figure);
        if (request.modifiedSince) qb.andWhere('s.modified >= :since', { since: request.modifiedSince });
      } else {
        qb.addSelect('SUM(s.inStock)', 'inStock').addSelect('SUM(s.onHold)', 'onHold').addSelect('SUM(s.available)', 'available').groupBy('s.partNo');
        for (const figure of FIGURES) qb.addSelect(`SUM(s.${figure})`, figure);
        // Every warehouse in scope: no filter, so the groups come straight off the primary key in partNo order.
        if (!allWarehouses) qb.where('s.wID IN (:...wids)', { wids });
        if (request.modifiedSince) qb.having('MAX(s.modified) >= :since', { since: request.modifiedSince });
      }
      if (w.seek) {
        const seek = seekCondition({ column: sum ?? sortBy, key: 's.partNo', direction }, w.seek.way, w.seek, { mysql, decimal: column in SUMS });
        if (sum) qb.andHaving(seek.sql, seek.parameters);
        else qb.andWhere(seek.sql, seek.parameters);
      }
      qb.orderBy(sortBy, w.direction);
      if (sortBy !== 's.partNo') qb.addOrderBy('s.partNo', w.direction);
      if (w.offset) qb.offset(w.offset);
      return qb.limit(w.limit).getRawMany<StockRow>();
    };
    const boundary = (r: StockRow) => ({ value: joined ? r.shortIdKey : column === 's.partNo' ? r.partNo : r[column as 'inStock' | 'onHold' | 'available'], key: r.partNo });
    const window = await pageWindow(request, () => totalCount, at, list, read, boundary);
    return joined ? { rows: await withSums(m, window.rows, allWarehouses ? null : wids), placed: window.placed, position: window.position } : window;
  }
}

/**
 * Items in shortID order (their unique index) that have a stock row in
 * these warehouses (null: any) modified since, if asked: the probe is a
 * primary-key read per item, so no sort and no grouping of the scope. The
 * walk passes over items without stock in scope: a warehouse holding few of
 * the catalog's items reads more items per page.
 */
function itemsInShortIdOrder(m: EntityManager, w: WindowRead, direction: 'ASC' | 'DESC', wids: number[] | null, since: Date | null): Promise<StockRow[]> {
  const scope = `${wids ? ' AND s.wID IN (:...wids)' : ''}${since ? ' AND s.modified >= :since' : ''}`;
  const qb = m
    .createQueryBuilder(Item, 'item')
    .select('item.partNo', 'partNo')
    .addSelect('item.shortIdKey', 'shortIdKey')
    // A scalar probe, not EXISTS: MariaDB would make EXISTS a semi-join starting from the warehouse's rows, then sort them.
    .where(`(SELECT s.partNo FROM stock_level s WHERE s.partNo = item.partNo${scope} LIMIT 1) IS NOT NULL`, { wids, since });
  if (w.seek) {
    const seek = seekCondition({ column: 'item.shortIdKey', key: 'item.partNo', direction, unique: true }, w.seek.way, w.seek, { mysql: false });
    qb.andWhere(seek.sql, seek.parameters);
  }
  qb.orderBy('item.shortIdKey', w.direction);
  if (w.offset) qb.offset(w.offset);
  return qb.limit(w.limit).getRawMany<StockRow>();
}

/** The sums over these warehouses (null: all) of the items of a page read in shortID order. */
async function withSums(m: EntityManager, rows: StockRow[], wids: number[] | null): Promise<StockRow[]> {
  if (!rows.length) return rows;
  const qb = m
    .createQueryBuilder(StockLevel, 's')
    .select('s.partNo', 'partNo')
    .addSelect('SUM(s.inStock)', 'inStock')
    .addSelect('SUM(s.onHold)', 'onHold')
    .addSelect('SUM(s.available)', 'available')
    .where('s.partNo IN (:...partNos)', { partNos: rows.map((r) => r.partNo) })
    .groupBy('s.partNo');
  for (const figure of FIGURES) qb.addSelect(`SUM(s.${figure})`, figure);
  if (wids) qb.andWhere('s.wID IN (:...wids)', { wids });
  const sums = new Map((await qb.getRawMany<StockRow>()).map((r) => [Number(r.partNo), r]));
  return rows.map((r) => {
    const sum = sums.get(Number(r.partNo));
    const figure = (name: Exclude<keyof StockRow, 'partNo' | 'shortIdKey'>) => sum?.[name] ?? 0;
    return { ...r, inStock: figure('inStock'), onHold: figure('onHold'), available: figure('available'), committed: figure('committed'), packed: figure('packed'), onOrder: figure('onOrder'), aSN: figure('aSN') };
  });
}
