import { Injectable } from '@nestjs/common';
import type { Caller } from '../auth/caller.js';
import type { Consistency } from '../database/list-reads.js';
import { DomainError } from '../errors.js';
import type { Page } from '../pagination/page.js';
import type { PageQueryDto } from '../pagination/page-query.dto.js';
import type { LotQueryDto } from './inventory.dto.js';
import { type LotResponseDto, type StockLevelResponseDto, toLotResponse, toTransactionResponse, type TransactionResponseDto } from './inventory.responses.js';
import { InventoryPagesRepository } from './inventory-pages.repository.js';
import { StockLevelPages } from './stock-level-pages.js';
import { WarehouseNames } from './warehouse-names.js';

export class WarehouseNotFound extends DomainError {
  constructor(raw: string) {
    super('not_found', `No warehouse ${raw.slice(0, 20)}.`);
  }
}

/**
 * GET /Inventory, /Inventory/<wid>, /Inventory/StockLevels[/<wid>] and the
 * ledger; always within the caller's warehouses. Each page is read where
 * ListReads sends it, from one source, by its repository
 * (InventoryPagesRepository, StockLevelPagesRepository), given the
 * consistency and the filters; this service turns the rows into answers.
 */
@Injectable()
export class InventoryQueries {
  constructor(
    private readonly warehouseNames: WarehouseNames,
    private readonly stock: StockLevelPages,
    private readonly pages: InventoryPagesRepository,
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
    return this.pages.lotPage(consistency, wids, { itemID: query.itemID }, query, async () => {
      // The names of the warehouses in scope (kept in memory once read), so that each row becomes its answer as it is read.
      const names = await this.warehouseNames.of(wids);
      return (lot, shortID, description) => toLotResponse(lot, shortID, description, names.get(lot.wID) ?? '');
    });
  }

  stockPage(wids: number[], query: PageQueryDto, consistency: Consistency): Promise<Page<StockLevelResponseDto>> {
    return this.stock.page(wids, query, consistency);
  }

  /** GET /Inventory/Transactions (extension): ledger rows touching the caller's warehouses. */
  ledgerPage(wids: number[], query: LotQueryDto, consistency: Consistency): Promise<Page<TransactionResponseDto>> {
    return this.pages.ledgerPage(consistency, wids, { itemID: query.itemID }, query, toTransactionResponse);
  }
}
