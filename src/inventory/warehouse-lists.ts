import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { PageCursors } from '../pagination/cursor.js';
import { type ListPaging, Page, type PageSpec, requestedCursor, resolvePage } from '../pagination/page.js';
import type { PageQuery, PageRequest } from '../pagination/page-request.js';

/** Which rows a list shows: those of some warehouses, of one item when the request names it, and of its other filters. */
export interface ListScope {
  /** The list's name, which its cursors hold. */
  name: string;
  wids: number[];
  /** The item's shortID, when the list is filtered by one. */
  itemID?: string;
  /** The list's other filters, as its cursors hold them. */
  filters?: unknown[];
}

/** What a list's page is read with: the one manager, the resolved request, the item's partNo (undefined: any item) and how the list pages. */
export interface ListStart {
  m: EntityManager;
  request: PageRequest;
  partNo: number | undefined;
  list: ListPaging;
}

/**
 * How the lists of some warehouses' rows start (the lots, the ledger, the
 * allocations and expectations: InventoryPagesRepository and
 * DocumentPagesRepository), each read where ListReads sends it, every
 * statement on the one manager its `run` gives: the item filter's partNo
 * first (ItemLocksRepository); a list that can hold nothing (no warehouse in
 * scope, an unknown item) is answered empty, after refusing a cursor that is
 * not its own; otherwise the page is the caller's to read. A cursor belongs
 * to its list, warehouses, item and other filters.
 */
@Injectable()
export class WarehouseLists {
  constructor(
    private readonly reads: ListReads,
    private readonly cursors: PageCursors,
    private readonly items: ItemLocksRepository,
  ) {}

  read<R>(consistency: Consistency, spec: PageSpec, query: PageQuery, scope: ListScope, page: (start: ListStart) => Promise<Page<R>>): Promise<Page<R>> {
    return this.reads.run(consistency, async (m) => {
      const request = resolvePage(query, spec);
      const partNo = scope.itemID === undefined ? undefined : await this.items.partNoOf(m, scope.itemID);
      const filters = [scope.name, [...scope.wids].sort((a, b) => a - b), partNo === null ? 'no such item' : (partNo ?? null), ...(scope.filters ?? [])];
      const list: ListPaging = { cursors: this.cursors, filters };
      if (!scope.wids.length || partNo === null) {
        // A list that can hold nothing still refuses a cursor that is not its own.
        requestedCursor(query, request, list);
        return new Page<R>([], 0, request);
      }
      return page({ m, request, partNo, list });
    });
  }
}
