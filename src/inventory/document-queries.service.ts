import { Injectable } from '@nestjs/common';
import type { Caller } from '../auth/caller.js';
import type { Consistency } from '../database/list-reads.js';
import type { Page } from '../pagination/page.js';
import type { AllocationQueryDto } from './allocation.dto.js';
import { type AllocationResponseDto, toAllocationResponse } from './allocation.responses.js';
import { ALLOCATION_PAGES, AllocationsRepository } from './allocations.repository.js';
import { DocumentPagesRepository } from './document-pages.repository.js';
import type { ExpectationQueryDto } from './expectation.dto.js';
import { type ExpectationResponseDto, toExpectationResponse } from './expectation.responses.js';
import { EXPECTATION_PAGES, ExpectationsRepository } from './expectations.repository.js';
import { documentId, seenDocument } from './stock-documents.js';

/**
 * GET /Inventory/Allocations[/<wid>], /Inventory/Allocation/<id> and the
 * same of expectations: always within the caller's warehouses (the list's
 * scope comes from InventoryQueries.scope, as for lots). A page is read
 * where ListReads sends it (DocumentPagesRepository); its total is read from
 * the documents' counters per warehouse (list-counts.ts), or, when a filter
 * narrows the list, a COUNT over the index of its filter. One document is a
 * point read of the primary.
 */
@Injectable()
export class DocumentQueries {
  constructor(
    private readonly pages: DocumentPagesRepository,
    private readonly allocations: AllocationsRepository,
    private readonly expectations: ExpectationsRepository,
  ) {}

  allocationPage(wids: number[], query: AllocationQueryDto, consistency: Consistency): Promise<Page<AllocationResponseDto>> {
    return this.pages.page('allocations', ALLOCATION_PAGES, this.allocations, consistency, wids, { itemID: query.itemID, reference: query.reference, state: query.state }, query, toAllocationResponse);
  }

  expectationPage(wids: number[], query: ExpectationQueryDto, consistency: Consistency): Promise<Page<ExpectationResponseDto>> {
    return this.pages.page('expectations', EXPECTATION_PAGES, this.expectations, consistency, wids, { itemID: query.itemID, reference: query.reference, state: query.state }, query, toExpectationResponse);
  }

  async allocation(caller: Caller, rawId: string): Promise<AllocationResponseDto> {
    const found = seenDocument(caller, 'allocation', rawId, await this.allocations.find(documentId(rawId, 'allocation')));
    return toAllocationResponse(found, found.shortID);
  }

  async expectation(caller: Caller, rawId: string): Promise<ExpectationResponseDto> {
    const found = seenDocument(caller, 'expectation', rawId, await this.expectations.find(documentId(rawId, 'expectation')));
    return toExpectationResponse(found, found.shortID);
  }
}
