import type { LedgerCheckRows } from './ledger-check.repository.js';
import { documentScope, ledgerScope, lotScope, stockScope } from './list-counts.js';

/** A list counter (list_count) that disagrees with the rows it counts. */
export interface ListCountMismatch {
  list: string;
  scope: string;
  stored: number | null;
  actual: number;
}

/**
 * Every list counter against a real COUNT of what its list shows: lots per
 * warehouse, items (all, active), ledger rows per pair of warehouses, items
 * per set of stock-level warehouses (from `levels`, the stock_level rows the
 * ledger check has read), allocations and expectations per warehouse. From
 * the counts and counters the ledger check read in its snapshot
 * (LedgerCheckRepository).
 */
export function listCountMismatches(
  rows: Pick<LedgerCheckRows, 'lotCounts' | 'items' | 'ledgerPairs' | 'documentCounts' | 'listCounts'>,
  levels: Array<{ partNo: number; wID: number }>,
): ListCountMismatch[] {
  const actual = new Map<string, { list: string; scope: string; n: number }>();
  const add = (list: string, scope: string, n: number) => {
    const key = `${list}\n${scope}`;
    const seen = actual.get(key);
    if (seen) seen.n += n;
    else actual.set(key, { list, scope, n });
  };
  for (const r of rows.lotCounts) add('lots', lotScope(Number(r.wID)), Number(r.n));
  const items = rows.items;
  add('items', 'all', Number(items?.total ?? 0));
  add('items', 'active', Number(items?.active ?? 0));
  for (const r of rows.ledgerPairs) {
    add('ledger', ledgerScope(r.fromWid === null ? null : Number(r.fromWid), r.toWid === null ? null : Number(r.toWid)), Number(r.n));
  }
  for (const r of rows.documentCounts) add(String(r.list), documentScope(Number(r.wID)), Number(r.n));
  const sets = new Map<number, number[]>();
  for (const l of levels) sets.set(Number(l.partNo), [...(sets.get(Number(l.partNo)) ?? []), Number(l.wID)]);
  for (const wids of sets.values()) add('stock', stockScope(wids), 1);

  const stored = new Map<string, number>();
  for (const r of rows.listCounts) stored.set(`${r.list}\n${r.scope}`, Number(r.n));
  for (const key of stored.keys()) {
    if (!actual.has(key)) {
      const [list, scope] = key.split('\n');
      actual.set(key, { list, scope, n: 0 });
    }
  }
  const out: ListCountMismatch[] = [];
  for (const [key, a] of actual) {
    const s = stored.get(key);
    if ((s ?? 0) !== a.n) out.push({ list: a.list, scope: a.scope, stored: s ?? null, actual: a.n });
  }
  return out.sort((x, y) => (x.list + x.scope < y.list + y.scope ? -1 : 1));
}
