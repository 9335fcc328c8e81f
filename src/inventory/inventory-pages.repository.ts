import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { columnList, rows, toEntity } from '../database/statements.js';
import type { TotalStatement } from '../database/total-statement.js';
import { type ListPaging, MAX_PAGE_SIZE, type Page, paginate, type PageSpec } from '../pagination/page.js';
import type { PageQuery } from '../pagination/page-request.js';
import { LedgerEntry, Lot } from './inventory.entities.js';

/** How a lot page sorts and pages (its columns are this repository's statement's). */
export const LOT_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { recNo: 'lot.recNo', received: 'lot.received', shortID: 'lot.shortIdKey', partNo: 'lot.partNo', spot: 'lot.spot', units: 'lot.units', modified: 'lot.modified' },
  defaultSort: { column: 'lot.received', direction: 'DESC' },
  tiebreak: 'lot.recNo',
  modifiedColumn: 'lot.modified',
  decimals: ['lot.units'],
};

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

/**
 * The statements of the lot and ledger pages (GET /Inventory[/<wid>],
 * /Inventory/Transactions), run through the manager the list's
 * ListReads.run gave (`m`), paged by `paginate` (pagination/page.ts): the
 * total (`total`, from the counters, else counted), the page's keys, then its
 * rows.
 */
@Injectable()
export class InventoryPagesRepository {
  /**
   * A page of the lots in these warehouses (of item `partNo` when given),
   * each lot with its item's shortID and description turned into the
   * caller's answer (`answer`) as it is read.
   */
  lotPage<R>(
    m: EntityManager,
    wids: number[],
    partNo: number | undefined,
    query: PageQuery,
    list: ListPaging,
    total: TotalStatement | undefined,
    answer: (lot: LotPageRow, itemShortID: string, itemDescription: string) => R,
  ): Promise<Page<R>> {
    const qb = m.createQueryBuilder(Lot, 'lot').where('lot.wID IN (:...wids)', { wids });
    if (partNo !== undefined) qb.andWhere('lot.partNo = :partNo', { partNo });
    return paginate(qb, query, LOT_PAGES, { ...list, total, rows: (keys) => lotAnswers(m, keys, answer) });
  }

  /** A page of the ledger rows out of or into these warehouses (of item `partNo` when given). */
  ledgerPage(m: EntityManager, wids: number[], partNo: number | undefined, query: PageQuery, list: ListPaging, total: TotalStatement | undefined): Promise<Page<LedgerEntry>> {
    const qb = m.createQueryBuilder(LedgerEntry, 'e').where('(e.fromWid IN (:...wids) OR e.toWid IN (:...wids))', { wids });
    if (partNo !== undefined) qb.andWhere('e.partNo = :partNo', { partNo });
    return paginate(qb, query, LEDGER_PAGES, { ...list, total });
  }
}

/**
 * The answers for the lots of a page's keys, by String(recNo): the lots with
 * their items' shortID and description, in one hand-written statement (a
 * join by primary keys), each row read into its answer at once. The query
 * builder's entity hydration and a second query for the items cost a 250-lot
 * page several times the statement itself. Only the columns the page sends
 * are read.
 */
async function lotAnswers<R>(m: EntityManager, recNos: unknown[], answer: (lot: LotPageRow, itemShortID: string, itemDescription: string) => R): Promise<Map<string, R>> {
  const q = (name: string) => m.connection.driver.escape(name);
  const found = await rows(
    m,
    `SELECT ${columnList(m, Lot, 'l', LOT_PAGE_FIELDS)}, i.${q('shortID')} AS itemShortID, i.${q('description')} AS itemDescription` +
      ` FROM ${q('lot')} l JOIN ${q('item')} i ON i.${q('partNo')} = l.${q('partNo')} WHERE l.${q('recNo')} IN (${recNos.map(() => '?').join(', ')})`,
    recNos,
  );
  const answers = new Map<string, R>();
  for (const row of found) {
    const lot = toEntity(m, Lot, row, LOT_PAGE_FIELDS);
    answers.set(String(lot.recNo), answer(lot, row.itemShortID as string, row.itemDescription as string));
  }
  return answers;
}
