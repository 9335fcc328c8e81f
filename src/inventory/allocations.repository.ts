import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { columnList, columnValue, insertRows, rows, toEntity, updateStatement } from '../database/statements.js';
import type { TotalStatement } from '../database/total-statement.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { type ListPaging, MAX_PAGE_SIZE, type Page, paginate, type PageSpec } from '../pagination/page.js';
import type { PageQuery } from '../pagination/page-request.js';
import { Allocation, type DocumentState } from './documents.entities.js';
import { countNewDocument, type DocumentList, documentTotalStatement } from './list-counts.js';

/** How an allocation page sorts and pages. */
export const ALLOCATION_PAGES: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { id: 'a.id', modified: 'a.modified' },
  defaultSort: { column: 'a.id', direction: 'ASC' },
  tiebreak: 'a.id',
  modifiedColumn: 'a.modified',
};

/** What narrows an allocation list besides its warehouses. */
export interface DocumentFilter {
  partNo?: number;
  reference?: string;
  state?: DocumentState;
}

/** A repository of a document that pages (AllocationsRepository, ExpectationsRepository), as DocumentQueries pages either. */
export interface DocumentPages<D> {
  page(m: EntityManager, wids: number[], filter: DocumentFilter, query: PageQuery, list: ListPaging): Promise<Page<D>>;
}

/**
 * The total of a page of documents: its list's counters of these warehouses
 * (list-counts.ts) unless a filter narrows the list (item, reference, state,
 * modifiedSince); then none, and paginate counts the filter's index range.
 */
export function documentTotal(list: DocumentList, wids: number[], filter: DocumentFilter, query: PageQuery): TotalStatement | undefined {
  const narrowed = filter.partNo !== undefined || filter.reference !== undefined || filter.state !== undefined || query.modifiedSince !== undefined;
  return narrowed ? undefined : documentTotalStatement(list, wids);
}

/** An allocation with its item's shortID, read without a lock. */
export type AllocationRow = Allocation & { shortID: string };

/**
 * An allocation the expiry found: due, open, with unpacked units left (read
 * again under its locks before anything changes), its item's shortID, and its
 * expiresAt as the driver read it (where the next look goes on from).
 */
export type DueAllocation = Pick<Allocation, 'id' | 'partNo' | 'wID'> & { shortID: string; expiresAt: unknown };

/**
 * The statements on `allocation`. In a transaction on its manager
 * (`ctx.manager`), the allocation locked after its stock_level row (the lock
 * order, locks.repository.ts); a point read and the expiry's look on
 * TransactionRunner's reader; a list's on the manager its ListReads.run gave.
 */
@Injectable()
export class AllocationsRepository implements DocumentPages<Allocation> {
  constructor(private readonly tx: TransactionRunner) {}

  /** The allocation and its item's shortID, not locked; null when there is none. */
  async find(id: number): Promise<AllocationRow | null> {
    return (await this.findMany([id])).get(id) ?? null;
  }

  /** The allocations of these ids that exist, with their items' shortIDs, not locked (a batch's checks). */
  async findMany(ids: number[]): Promise<Map<number, AllocationRow>> {
    const m = this.tx.reader;
    if (!ids.length) return new Map();
    const found = await rows(m, `SELECT ${columnList(m, Allocation, 'a')}, i.shortID AS itemShortID FROM allocation a JOIN item i ON i.partNo = a.partNo WHERE a.id IN (${ids.map(() => '?').join(', ')})`, ids);
    return new Map(found.map((row) => [Number(row.id), { ...toEntity(m, Allocation, row), shortID: String(row.itemShortID) }]));
  }

  /** The allocation, locked (its stock_level row is locked first); null when there is none. */
  async lock(ctx: TransactionContext, id: number): Promise<Allocation | null> {
    const m = ctx.manager;
    const [row] = await rows(m, `SELECT ${columnList(m, Allocation)} FROM allocation WHERE id = ?${this.tx.lockClause}`, [id]);
    return row ? toEntity(m, Allocation, row) : null;
  }

  /** A new allocation, counted in its warehouse's counter with the commit; its id. */
  async insert(ctx: TransactionContext, values: Omit<Allocation, 'id'>): Promise<number> {
    const id = await insertRows(ctx.manager, Allocation, [values]);
    countNewDocument(ctx, 'allocations', values.wID);
    return id;
  }

  /** Writes a locked allocation's figures and state, with the commit. */
  update(ctx: TransactionContext, a: Allocation): void {
    const { units, packed, shipped, state, modified } = a;
    ctx.later(updateStatement(ctx.manager, Allocation, { units, packed, shipped, state, modified }, 'id', [a.id]));
  }

  /** A page of the allocations in these warehouses, filtered; its total from the counters, or a COUNT over the filter's index (documentTotal). */
  page(m: EntityManager, wids: number[], filter: DocumentFilter, query: PageQuery, list: ListPaging): Promise<Page<Allocation>> {
    const qb = m.createQueryBuilder(Allocation, 'a').where('a.wID IN (:...wids)', { wids });
    if (filter.partNo !== undefined) qb.andWhere('a.partNo = :partNo', { partNo: filter.partNo });
    if (filter.reference !== undefined) qb.andWhere('a.reference = :reference', { reference: filter.reference });
    if (filter.state !== undefined) qb.andWhere('a.state = :state', { state: filter.state });
    return paginate(m, qb, query, ALLOCATION_PAGES, { ...list, total: documentTotal('allocations', wids, filter, query) });
  }

  /**
   * Up to `limit` open allocations whose expiresAt is at or before `now` and
   * that still have unpacked units (IX_allocation_expiry), soonest first;
   * those after `after` in that order when given (a look goes on past what
   * the one before it read, whether or not those expired).
   */
  async due(now: Date, limit: number, after?: Pick<DueAllocation, 'expiresAt' | 'id'>): Promise<DueAllocation[]> {
    const m = this.tx.reader;
    const seek = after ? ' AND (a.expiresAt > ? OR (a.expiresAt = ? AND a.id > ?))' : '';
    const found = await rows(
      m,
      // Amounts are whole ten-thousandths: more than half of one left means some is (SQLite subtracts in doubles).
      'SELECT a.id, a.partNo, a.wID, a.expiresAt, i.shortID FROM allocation a JOIN item i ON i.partNo = a.partNo' +
        ` WHERE a.state = 'open' AND a.expiresAt <= ?${seek} AND a.units - a.shipped - a.packed > 0.00005 ORDER BY a.expiresAt, a.id LIMIT ?`,
      [columnValue(m, Allocation, 'expiresAt', now), ...(after ? [after.expiresAt, after.expiresAt, after.id] : []), limit],
    );
    return found.map((r) => ({ id: Number(r.id), partNo: Number(r.partNo), wID: Number(r.wID), shortID: String(r.shortID), expiresAt: r.expiresAt }));
  }
}
