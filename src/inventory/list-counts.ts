import type { TransactionContext } from '../database/transaction-context.js';
import { type CountChange, countsTotal, sumCounts } from '../database/counters.js';
import type { TotalStatement } from '../database/total-statement.js';

/*
 * The inventory's list counters, in `list_count`: exact list totals kept by
 * the transactions that change the rows, so that no page counts rows. One
 * counter is (list, scope); its value is the sum of its slot rows.
 *
 *   list          scope                          counts
 *   lots          "<wID>"                        lots of a warehouse, archived included (what GET /Inventory lists)
 *   items         "all" | "active"               items, and those not discontinued
 *   ledger        "<fromWid or 0>><toWid or 0>"  ledger rows per pair of warehouses (a receive has no from, an issue no to)
 *   stock         "<wID>,<wID>,…" ascending      items whose stock_level rows are in exactly these warehouses
 *   allocations   "<wID>"                        allocations of a warehouse, every state (what their list shows unfiltered)
 *   expectations  "<wID>"                        expectations of a warehouse, every state
 *
 * They are written in the change's transaction, after the rows they count:
 * lot and ledger counters right after the ledger rows (countLedgerRows),
 * stock-set counters right after the stock_level row they count
 * (countNewLevel), a document's right after its insert (countNewDocument).
 * The totals read them back. list-counters.repository.ts recomputes them all
 * from the rows.
 */

/** A stock scope longer than this is kept under "*" (an item in very many warehouses): the readers then count instead. */
export const MAX_SCOPE = 1000;

export const lotScope = (wid: number) => String(wid);
export const documentScope = (wid: number) => String(wid);
export const ledgerScope = (from: number | null, to: number | null) => `${from ?? 0}>${to ?? 0}`;
/** The stock scope of an item with stock_level rows in these warehouses; "*" past MAX_SCOPE. */
export function stockScope(wids: number[]): string {
  const scope = [...new Set(wids)].sort((a, b) => a - b).join(',');
  return scope.length > MAX_SCOPE ? '*' : scope;
}

/** A ledger row as far as counting goes. */
interface CountedRow {
  recNo: number;
  fromRecNo: number | null;
  fromWid: number | null;
  toWid: number | null;
}

/**
 * The counter changes one operation's ledger rows imply. Every lot that is
 * created or changes warehouse has exactly one ledger row: a receive (no
 * fromRecNo) created a lot in toWid; a row whose recNo differs from its
 * fromRecNo split a new lot off, into toWid (a Move) or, archived, in the
 * source warehouse (an Issue); a lot moved whole (same recNo) to another
 * warehouse left fromWid for toWid. Issuing a lot whole archives it in place:
 * GET /Inventory lists archived lots too, so its count does not change.
 */
export function ledgerCountChanges(rows: CountedRow[]): CountChange[] {
  const changes: CountChange[] = [];
  const lots = (wid: number, by: number) => changes.push({ list: 'lots', scope: lotScope(wid), by });
  for (const row of rows) {
    changes.push({ list: 'ledger', scope: ledgerScope(row.fromWid, row.toWid), by: 1 });
    if (row.fromRecNo === null) lots(row.toWid!, 1);
    else if (row.recNo !== row.fromRecNo) lots(row.toWid ?? row.fromWid!, 1);
    else if (row.toWid !== null && row.toWid !== row.fromWid) {
      lots(row.fromWid!, -1);
      lots(row.toWid, 1);
    }
  }
  return changes;
}

/** Counts an operation's ledger rows (and the lots they imply) with the commit of its transaction. */
export function countLedgerRows(ctx: TransactionContext, rows: CountedRow[]): void {
  ctx.counts.add(ledgerCountChanges(rows));
}

/** An item that had stock_level rows in `before` got one in `wid` too: it moves from one stock set to the next. */
export function countNewLevel(ctx: TransactionContext, before: number[], wid: number): void {
  const changes: CountChange[] = [{ list: 'stock', scope: stockScope([...before, wid]), by: 1 }];
  if (before.length) changes.push({ list: 'stock', scope: stockScope(before), by: -1 });
  ctx.counts.add(changes);
}

/** The stock documents' lists, each with a counter per warehouse: what a document page's total is read from. */
export type DocumentList = 'allocations' | 'expectations';

/**
 * A new allocation or expectation in `wid`, counted with the commit of its
 * transaction. A document is never deleted and never changes warehouse, and
 * its list shows every state: nothing else changes its count.
 */
export function countNewDocument(ctx: TransactionContext, list: DocumentList, wid: number): void {
  ctx.counts.add([{ list, scope: documentScope(wid), by: 1 }]);
}

/** Documents of a list in these warehouses, every state, as the statement a page sends with its first read (paginate); `wids` not empty. */
export function documentTotalStatement(list: DocumentList, wids: number[]): TotalStatement {
  return countsTotal(list, wids.map(documentScope));
}

/** Lots in these warehouses, archived included, as the statement a page sends with its first read (paginate); `wids` not empty. */
export function lotTotalStatement(wids: number[]): TotalStatement {
  return countsTotal('lots', wids.map(lotScope));
}

/** Ledger rows out of or into any of these warehouses (a row between two of them counted once), as the statement a page sends with its first read (paginate). */
export function ledgerTotalStatement(wids: number[]): TotalStatement {
  const within = new Set(wids.map(String));
  return countsTotal('ledger', undefined, (scope) => scope.split('>').some((w) => within.has(w)));
}

/**
 * Items with a stock_level row in any of these warehouses, from the stock-set
 * counters (`counts`, scope → value, as read by readCounts): the sum of the
 * sets that meet them, or null when an item's set was too long to keep
 * ("*"), so that the caller counts instead.
 */
export function stockTotal(counts: Map<string, number>, wids: number[]): number | null {
  if ((counts.get('*') ?? 0) !== 0) return null;
  const within = new Set(wids.map(String));
  return sumCounts(counts, (scope) => scope.split(',').some((w) => within.has(w)));
}
