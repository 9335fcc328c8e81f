import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { columnList, insertRows, rows, toEntity, updateStatement } from '../database/statements.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { type ListPaging, MAX_PAGE_SIZE, type Page, paginate, type PageSpec } from '../pagination/page.js';
import type { PageQuery } from '../pagination/page-request.js';
import { type DocumentFilter, type DocumentPages, documentTotal } from './allocations.repository.js';
import { Expectation } from './documents.entities.js';
import { countNewDocument } from './list-counts.js';

/** How an expectation page sorts and pages. */
export const EXPECTATION_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { id: 'e.id', modified: 'e.modified' },
  defaultSort: { column: 'e.id', direction: 'ASC' },
  tiebreak: 'e.id',
  modifiedColumn: 'e.modified',
};

/** An expectation with its item's shortID, read without a lock. */
export type ExpectationRow = Expectation & { shortID: string };

/**
 * The statements on `expectation`. In a transaction on its manager
 * (`ctx.manager`), the expectation locked after its stock_level row (the
 * lock order, locks.repository.ts); a point read on TransactionRunner's
 * reader; a list's on the manager its ListReads.run gave.
 */
@Injectable()
export class ExpectationsRepository implements DocumentPages<Expectation> {
  constructor(private readonly tx: TransactionRunner) {}

  /** The expectation and its item's shortID, not locked; null when there is none. */
  async find(id: number): Promise<ExpectationRow | null> {
    return (await this.findMany([id])).get(id) ?? null;
  }

  /** The expectations of these ids that exist, with their items' shortIDs, not locked (a batch's checks). */
  async findMany(ids: number[]): Promise<Map<number, ExpectationRow>> {
    const m = this.tx.reader;
    if (!ids.length) return new Map();
    const found = await rows(m, `SELECT ${columnList(m, Expectation, 'e')}, i.shortID AS itemShortID FROM expectation e JOIN item i ON i.partNo = e.partNo WHERE e.id IN (${ids.map(() => '?').join(', ')})`, ids);
    return new Map(found.map((row) => [Number(row.id), { ...toEntity(m, Expectation, row), shortID: String(row.itemShortID) }]));
  }

  /** The expectation, locked (its stock_level row is locked first); null when there is none. */
  async lock(ctx: TransactionContext, id: number): Promise<Expectation | null> {
    const m = ctx.manager;
    const [row] = await rows(m, `SELECT ${columnList(m, Expectation)} FROM expectation WHERE id = ?${this.tx.lockClause}`, [id]);
    return row ? toEntity(m, Expectation, row) : null;
  }

  /** A new expectation, counted in its warehouse's counter with the commit; its id. */
  async insert(ctx: TransactionContext, values: Omit<Expectation, 'id'>): Promise<number> {
    const id = await insertRows(ctx.manager, Expectation, [values]);
    countNewDocument(ctx, 'expectations', values.wID);
    return id;
  }

  /** Writes a locked expectation's figures, stage and state, with the commit. */
  update(ctx: TransactionContext, e: Expectation): void {
    const { received, stage, state, modified } = e;
    ctx.later(updateStatement(ctx.manager, Expectation, { received, stage, state, modified }, 'id', [e.id]));
  }

  /** A page of the expectations in these warehouses, filtered; its total from the counters, or a COUNT over the filter's index (documentTotal). */
  page(m: EntityManager, wids: number[], filter: DocumentFilter, query: PageQuery, list: ListPaging): Promise<Page<Expectation>> {
    const qb = m.createQueryBuilder(Expectation, 'e').where('e.wID IN (:...wids)', { wids });
    if (filter.partNo !== undefined) qb.andWhere('e.partNo = :partNo', { partNo: filter.partNo });
    if (filter.reference !== undefined) qb.andWhere('e.reference = :reference', { reference: filter.reference });
    if (filter.state !== undefined) qb.andWhere('e.state = :state', { state: filter.state });
    return paginate(m, qb, query, EXPECTATION_PAGES, { ...list, total: documentTotal('expectations', wids, filter, query) });
  }
}
