import { Injectable } from '@nestjs/common';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { PageCursors } from '../pagination/cursor.js';
import { Page, requestedCursor, resolvePage } from '../pagination/page.js';
import type { PageQueryDto } from '../pagination/page-query.dto.js';
import { fromTenThousandths, storedTenThousandths } from '../quantity.js';
import type { StockLevelResponseDto } from './inventory.responses.js';
import { STOCK_PAGES, StockLevelPagesRepository } from './stock-level-pages.repository.js';

/** GET /Inventory/StockLevels[/<wid>]: one row per item, summed over the warehouses asked for. */
@Injectable()
export class StockLevelPages {
  constructor(
    private readonly reads: ListReads,
    private readonly cursors: PageCursors,
    private readonly pages: StockLevelPagesRepository,
    private readonly items: ItemLocksRepository,
  ) {}

  /**
   * One row per item that has had a lot in these warehouses, summed over them,
   * read from the stock_level summary where ListReads sends it, every
   * statement through the one manager `run` gives. In the default order
   * (partNo) only the page's items are joined, and totalCount comes from
   * counters: the cost follows the page, not the lots (the statements and
   * how each order reads: StockLevelPagesRepository).
   */
  page(wids: number[], query: PageQueryDto, consistency: Consistency): Promise<Page<StockLevelResponseDto>> {
    return this.reads.run(consistency, async (db) => {
      const request = resolvePage(query, STOCK_PAGES);
      const list = { cursors: this.cursors, filters: ['stock', [...wids].sort((a, b) => a - b)] };
      const at = requestedCursor(query, request, list);
      if (!wids.length) return new Page([], 0, request);
      const { allWarehouses, totalCount } = await this.pages.total(db, wids, request.modifiedSince);
      const { rows, placed, position } = await this.pages.window(db, wids, allWarehouses, request, at, list, totalCount);
      const items = await this.items.shortIds(db, rows.map((r) => Number(r.partNo)));
      return new Page(
        rows.map((r): StockLevelResponseDto => {
          // Sums of stored values, exact as ten-thousandths whatever their size: no stored data can make a list fail.
          const [inStock, onHold, committed, packed, onOrder, aSN] = [r.inStock, r.onHold, r.committed, r.packed, r.onOrder, r.aSN].map((v) => storedTenThousandths(v ?? 0));
          const partNo = Number(r.partNo);
          // DECISIONS "Inventory": available = inStock − onHold − committed − packed (the documents' figures: allocations and expectations).
          return {
            partNo,
            shortID: items.get(partNo) ?? '',
            available: fromTenThousandths(inStock - onHold - committed - packed),
            inStock: fromTenThousandths(inStock),
            onOrder: fromTenThousandths(onOrder),
            onHold: fromTenThousandths(onHold),
            committed: fromTenThousandths(committed),
            packed: fromTenThousandths(packed),
            aSN: fromTenThousandths(aSN),
          };
        }),
        totalCount,
        placed,
        position,
      );
    });
  }
}
