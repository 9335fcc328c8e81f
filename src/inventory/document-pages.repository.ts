import { Injectable } from '@nestjs/common';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import type { Consistency } from '../database/list-reads.js';
import type { Page, PageSpec } from '../pagination/page.js';
import type { PageQuery } from '../pagination/page-request.js';
import type { DocumentPages } from './allocations.repository.js';
import type { DocumentState } from './documents.entities.js';
import { WarehouseLists } from './warehouse-lists.js';

/** What a document list is filtered by besides its warehouses, as the request names it. */
export interface DocumentListFilter {
  itemID?: string;
  reference?: string;
  state?: DocumentState;
}

/**
 * A page of allocations or expectations, started by WarehouseLists
 * (warehouse-lists.ts: where it is read, the item filter, a list that can
 * hold nothing, its cursors, which also hold the reference and state
 * filters), then the page of the document's repository with its total
 * (documentTotal: the list counters, or a COUNT over the filter's index when
 * a filter narrows the list), then its items' shortIDs.
 */
@Injectable()
export class DocumentPagesRepository {
  constructor(
    private readonly lists: WarehouseLists,
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
    const scope = { name, wids, itemID: filter.itemID, filters: [filter.reference ?? null, filter.state ?? null] };
    return this.lists.read(consistency, spec, query, scope, async ({ m, partNo, list }) => {
      const page = await pages.page(m, wids, { partNo, reference: filter.reference, state: filter.state }, query, list);
      const names = await this.items.shortIds(m, page.value.map((d) => d.partNo));
      return page.map((d) => answer(d, names.get(d.partNo) ?? ''));
    });
  }
}
