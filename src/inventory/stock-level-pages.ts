import { Injectable } from '@nestjs/common';
import type { Consistency } from '../database/list-reads.js';
import type { Page } from '../pagination/page.js';
import type { PageQueryDto } from '../pagination/page-query.dto.js';
import { fromTenThousandths, storedTenThousandths } from '../quantity.js';
import type { StockLevelResponseDto } from './inventory.responses.js';
import { StockLevelPagesRepository, type StockRow } from './stock-level-pages.repository.js';

/** GET /Inventory/StockLevels[/<wid>]: one row per item, summed over the warehouses asked for. */
@Injectable()
export class StockLevelPages {
  constructor(private readonly pages: StockLevelPagesRepository) {}

  /**
   * One row per item that has had a lot in these warehouses, summed over them,
   * read from the stock_level summary where ListReads sends it, every
   * statement through the one manager its `run` gives. In the default order
   * (partNo) only the page's items are joined, and totalCount comes from
   * counters: the cost follows the page, not the lots (the statements and
   * how each order reads: StockLevelPagesRepository).
   */
  page(wids: number[], query: PageQueryDto, consistency: Consistency): Promise<Page<StockLevelResponseDto>> {
    return this.pages.page(consistency, wids, query, toStockLevelResponse);
  }
}

/** A row of a stock-level page as its answer. */
function toStockLevelResponse(r: StockRow, shortID: string): StockLevelResponseDto {
  // Sums of stored values, exact as ten-thousandths whatever their size: no stored data can make a list fail.
  const [inStock, onHold, committed, packed, onOrder, aSN] = [r.inStock, r.onHold, r.committed, r.packed, r.onOrder, r.aSN].map((v) => storedTenThousandths(v ?? 0));
  // DECISIONS "Inventory": available = inStock − onHold − committed − packed (the documents' figures: allocations and expectations).
  return {
    partNo: Number(r.partNo),
    shortID,
    available: fromTenThousandths(inStock - onHold - committed - packed),
    inStock: fromTenThousandths(inStock),
    onOrder: fromTenThousandths(onOrder),
    onHold: fromTenThousandths(onHold),
    committed: fromTenThousandths(committed),
    packed: fromTenThousandths(packed),
    aSN: fromTenThousandths(aSN),
  };
}
