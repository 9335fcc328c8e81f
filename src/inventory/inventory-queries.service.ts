import { Injectable } from '@nestjs/common';
import type { Caller } from '../auth/caller.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { DomainError } from '../errors.js';
import { PageCursors } from '../pagination/cursor.js';
import { type ListPaging, Page, requestedCursor, resolvePage } from '../pagination/page.js';
import type { PageQueryDto } from '../pagination/page-query.dto.js';
import type { LotQueryDto } from './inventory.dto.js';
import { type LotResponseDto, type StockLevelResponseDto, toLotResponse, toTransactionResponse, type TransactionResponseDto } from './inventory.responses.js';
import { InventoryPagesRepository, LEDGER_PAGES, LOT_PAGES } from './inventory-pages.repository.js';
import { ledgerTotalStatement, lotTotalStatement } from './list-counts.js';
import { StockLevelPages } from './stock-level-pages.js';
import { WarehouseNames } from './warehouse-names.js';

export class WarehouseNotFound extends DomainError {
  constructor(raw: string) {
    super('not_found', `No warehouse ${raw.slice(0, 20)}.`);
  }
}

/**
 * GET /Inventory, /Inventory/<wid>, /Inventory/StockLevels[/<wid>] and the
 * ledger; always within the caller's warehouses, each page read where
 * ListReads sends it, all its statements (InventoryPagesRepository's and the
 * item reads of ItemLocksRepository) through the one manager `run` gives.
 */
@Injectable()
export class InventoryQueries {
  constructor(
    private readonly reads: ListReads,
    private readonly warehouseNames: WarehouseNames,
    private readonly stock: StockLevelPages,
    private readonly cursors: PageCursors,
    private readonly pages: InventoryPagesRepository,
    private readonly items: ItemLocksRepository,
  ) {}

  /** The warehouses a list covers: the one named (in scope, else 403), or all of the caller's. */
  scope(caller: Caller, rawWid?: string): number[] {
    if (rawWid === undefined) return [...caller.warehouses];
    const wid = /^\d{1,10}$/.test(rawWid) ? Number(rawWid) : 0;
    if (wid < 1 || wid > 2_147_483_647) throw new WarehouseNotFound(rawWid);
    caller.assertWarehouses(wid);
    return [wid];
  }

  lotPage(wids: number[], query: LotQueryDto, consistency: Consistency): Promise<Page<LotResponseDto>> {
    return this.reads.run(consistency, async (db) => {
      const request = resolvePage(query, LOT_PAGES);
      const partNo = query.itemID === undefined ? undefined : await this.items.partNoOf(db, query.itemID);
      const list = this.paging('lots', wids, partNo);
      if (!wids.length || partNo === null) {
        // A list that can hold nothing still refuses a cursor that is not its own.
        requestedCursor(query, request, list);
        return new Page<LotResponseDto>([], 0, request);
      }
      // The lot counters answer unless a filter narrows the list: then the item's or the modified index's range is counted.
      const total = partNo === undefined && !request.modifiedSince ? lotTotalStatement(wids) : undefined;
      // The names of the warehouses in scope (kept in memory once read), so that each row becomes its answer as it is read.
      const names = await this.warehouseNames.of(wids);
      return this.pages.lotPage(db, wids, partNo, query, list, total, (lot, shortID, description) => toLotResponse(lot, shortID, description, names.get(lot.wID) ?? ''));
    });
  }

  stockPage(wids: number[], query: PageQueryDto, consistency: Consistency): Promise<Page<StockLevelResponseDto>> {
    return this.stock.page(wids, query, consistency);
  }

  /** GET /Inventory/Transactions (extension): ledger rows touching the caller's warehouses. */
  ledgerPage(wids: number[], query: LotQueryDto, consistency: Consistency): Promise<Page<TransactionResponseDto>> {
    return this.reads.run(consistency, async (db) => {
      const request = resolvePage(query, LEDGER_PAGES);
      const partNo = query.itemID === undefined ? undefined : await this.items.partNoOf(db, query.itemID);
      const list = this.paging('ledger', wids, partNo);
      if (!wids.length || partNo === null) {
        requestedCursor(query, request, list);
        return new Page<TransactionResponseDto>([], 0, request);
      }
      const total = partNo === undefined && !request.modifiedSince ? ledgerTotalStatement(wids) : undefined;
      const page = await this.pages.ledgerPage(db, wids, partNo, query, list, total);
      const items = await this.items.names(db, page.value.map((e) => e.partNo));
      return page.map((e) => toTransactionResponse(e, items.get(e.partNo)?.shortID ?? ''));
    });
  }

  /** How a list of these warehouses (and item) pages: a cursor is the list's only with the same scope and item. */
  private paging(name: string, wids: number[], partNo: number | null | undefined): ListPaging {
    return { cursors: this.cursors, filters: [name, [...wids].sort((a, b) => a - b), partNo === null ? 'no such item' : (partNo ?? null)] };
  }
}
