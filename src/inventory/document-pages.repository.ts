import { Injectable } from '@nestjs/common';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { PageCursors } from '../pagination/cursor.js';
import { type ListPaging, Page, type PageSpec, requestedCursor, resolvePage } from '../pagination/page.js';
import type { PageQuery } from '../pagination/page-request.js';
import type { DocumentPages } from './allocations.repository.js';
import type { DocumentState } from './documents.entities.js';

/** What a document list is filtered by besides its warehouses, as the request names it. */
export interface DocumentListFilter {
  itemID?: string;
  reference?: string;
  state?: DocumentState;
}

/**
 * A page of allocations or expectations, every statement on the one manager
 * ListReads gives (the replica's or the primary's): the item filter's partNo
 * first (an unknown item lists nothing), then the page of the document's
 * repository with its total (documentTotal: counters, or a COUNT over the filter's index), then its
 * items' shortIDs. A cursor belongs to its list, scope and filters.
 */
@Injectable()
export class DocumentPagesRepository {
  constructor(
    private readonly reads: ListReads,
    private readonly cursors: PageCursors,
    private readonly items: ItemLocksRepository,
  ) {}

  page<D extends { partNo: number }, R>(
    name: string,
    spec: PageSpec,
    pages: DocumentPages<D>,
    consistency: Consistency,
    wids: number[],
    filter: DocumentListFilter,
    query: PageQuery,
    answer: (document: D, shortID: string) => R,
  ): Promise<Page<R>> {
    return this.reads.run(consistency, async (m) => {
      const request = resolvePage(query, spec);
      const partNo = filter.itemID === undefined ? undefined : await this.items.partNoOf(m, filter.itemID);
      const filters = [name, [...wids].sort((a, b) => a - b), partNo === null ? 'no such item' : (partNo ?? null), filter.reference ?? null, filter.state ?? null];
      const list: ListPaging = { cursors: this.cursors, filters };
      if (!wids.length || partNo === null) {
        // A list that can hold nothing still refuses a cursor that is not its own.
        requestedCursor(query, request, list);
        return new Page<R>([], 0, request);
      }
      const page = await pages.page(m, wids, { partNo, reference: filter.reference, state: filter.state }, query, list);
      const names = await this.items.shortIds(m, page.value.map((d) => d.partNo));
      return page.map((d) => answer(d, names.get(d.partNo) ?? ''));
    });
  }
}
