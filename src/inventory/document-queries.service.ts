import { Injectable } from '@nestjs/common';
import type { Caller } from '../auth/caller.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { PageCursors } from '../pagination/cursor.js';
import { type ListPaging, Page, type PageSpec, requestedCursor, resolvePage } from '../pagination/page.js';
import type { AllocationQueryDto } from './allocation.dto.js';
import { type AllocationResponseDto, toAllocationResponse } from './allocation.responses.js';
import { ALLOCATION_PAGES, AllocationsRepository, type DocumentPages } from './allocations.repository.js';
import type { ExpectationQueryDto } from './expectation.dto.js';
import { type ExpectationResponseDto, toExpectationResponse } from './expectation.responses.js';
import { EXPECTATION_PAGES, ExpectationsRepository } from './expectations.repository.js';
import { documentId, DocumentNotFound } from './stock-documents.js';

/**
 * GET /Inventory/Allocations[/<wid>], /Inventory/Allocation/<id> and the
 * same of expectations: always within the caller's warehouses (the list's
 * scope comes from InventoryQueries.scope, as for lots). A page is read where
 * ListReads sends it, every statement through the one manager `run` gives;
 * its total is a COUNT over the index of its filter (documents.entities.ts).
 * One document is a point read of the primary.
 */
@Injectable()
export class DocumentQueries {
  constructor(
    private readonly reads: ListReads,
    private readonly cursors: PageCursors,
    private readonly items: ItemLocksRepository,
    private readonly allocations: AllocationsRepository,
    private readonly expectations: ExpectationsRepository,
  ) {}

  allocationPage(wids: number[], query: AllocationQueryDto, consistency: Consistency): Promise<Page<AllocationResponseDto>> {
    return this.page('allocations', ALLOCATION_PAGES, this.allocations, wids, query, consistency, toAllocationResponse);
  }

  expectationPage(wids: number[], query: ExpectationQueryDto, consistency: Consistency): Promise<Page<ExpectationResponseDto>> {
    return this.page('expectations', EXPECTATION_PAGES, this.expectations, wids, query, consistency, toExpectationResponse);
  }

  async allocation(caller: Caller, rawId: string): Promise<AllocationResponseDto> {
    const found = await this.allocations.find(documentId(rawId, 'allocation'));
    if (!found) throw new DocumentNotFound('allocation', rawId);
    caller.assertWarehouses(found.wID);
    return toAllocationResponse(found, found.shortID);
  }

  async expectation(caller: Caller, rawId: string): Promise<ExpectationResponseDto> {
    const found = await this.expectations.find(documentId(rawId, 'expectation'));
    if (!found) throw new DocumentNotFound('expectation', rawId);
    caller.assertWarehouses(found.wID);
    return toExpectationResponse(found, found.shortID);
  }

  /**
   * A page of documents: the item filter's partNo first (an unknown item
   * lists nothing), then the page, then its items' shortIDs. A cursor belongs
   * to its list, scope and filters.
   */
  private page<D extends { partNo: number }, R>(
    name: string,
    spec: PageSpec,
    pages: DocumentPages<D>,
    wids: number[],
    query: AllocationQueryDto | ExpectationQueryDto,
    consistency: Consistency,
    answer: (document: D, shortID: string) => R,
  ): Promise<Page<R>> {
    return this.reads.run(consistency, async (db) => {
      const request = resolvePage(query, spec);
      const partNo = query.itemID === undefined ? undefined : await this.items.partNoOf(db, query.itemID);
      const filters = [name, [...wids].sort((a, b) => a - b), partNo === null ? 'no such item' : (partNo ?? null), query.reference ?? null, query.state ?? null];
      const list: ListPaging = { cursors: this.cursors, filters };
      if (!wids.length || partNo === null) {
        // A list that can hold nothing still refuses a cursor that is not its own.
        requestedCursor(query, request, list);
        return new Page<R>([], 0, request);
      }
      const page = await pages.page(db, wids, { partNo, reference: query.reference, state: query.state }, query, list);
      const names = await this.items.shortIds(db, page.value.map((d) => d.partNo));
      return page.map((d) => answer(d, names.get(d.partNo) ?? ''));
    });
  }
}
