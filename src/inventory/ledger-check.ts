import { Injectable } from '@nestjs/common';
import { formatDecimal, storedTenThousandths } from '../quantity.js';
import { LedgerCheckRepository, type LedgerCheckRows } from './ledger-check.repository.js';
import { type DocumentMismatch, documentMismatches, type DocumentStateMismatch, documentStateMismatches } from './document-check.js';
import { listCountMismatches, type ListCountMismatch } from './list-count-check.js';

export interface LedgerMismatch {
  partNo: number;
  wID: number;
  ledger: string;
  lots: string;
  summary: string | null;
  heldLots: string;
  summaryOnHold: string | null;
}

/** A stock_count row that disagrees with the stock_level rows it counts (scope 0: any warehouse). */
export interface CountMismatch {
  scope: number;
  stored: number | null;
  actual: number;
}

export interface LedgerReport {
  ok: boolean;
  checked: number;
  mismatches: LedgerMismatch[];
  countMismatches: CountMismatch[];
  /** list_count counters that disagree with a COUNT of what their list shows (see list-count-check.ts). */
  listCountMismatches: ListCountMismatch[];
  /** stock_level figures (committed, packed, onOrder, aSN) that disagree with the open documents they count (see document-check.ts). */
  documentMismatches: DocumentMismatch[];
  /** Allocations and expectations whose own figures or state break their rules (see document-check.ts). */
  documentStateMismatches: DocumentStateMismatch[];
}

/**
 * The stock invariant (issue "Inventory"): for every item × warehouse,
 * Σ ledger (in − out) = Σ units of in-stock lots = the stock_level row, and
 * the held in-stock lots = its onHold. Sums are exact on both databases.
 * Also: stock_count holds the number of items with a stock_level row, per
 * warehouse and in any warehouse; every list counter (list_count) equals
 * a COUNT of the rows its list shows; and the documents' figures of every
 * stock_level row (committed, packed, onOrder, aSN) equal what is left on
 * its open allocations and expectations.
 *
 * All sums are read in one transaction, so they come from one snapshot
 * (REPEATABLE READ on InnoDB, a read transaction on SQLite's WAL): a change
 * committing between two of the queries cannot show as a false mismatch
 * (LedgerCheckRepository, ledger-check.repository.ts).
 *
 * Provided by LedgerCheckModule (ledger-check.module.ts): to the CLI's
 * `ledger:check`, and through `checkLedger` to whatever holds only a data
 * source (the e2e suite, the hostile suites, the benchmark and the soak).
 */
@Injectable()
export class LedgerCheck {
  constructor(private readonly statements: LedgerCheckRepository) {}

  async run(): Promise<LedgerReport> {
    return compare(await this.statements.read());
  }
}

function compare(rows: LedgerCheckRows): LedgerReport {
  const { ins, outs, lots, levels } = rows;
  const totals = new Map<string, { partNo: number; wID: number; ledger: bigint; lots: bigint; held: bigint; summary: bigint | null; onHold: bigint | null }>();
  const at = (partNo: number, wID: number) => {
    const key = `${partNo}:${wID}`;
    let t = totals.get(key);
    if (!t) totals.set(key, (t = { partNo, wID, ledger: 0n, lots: 0n, held: 0n, summary: null, onHold: null }));
    return t;
  };
  const exact = (raw: string | number | null) => (raw === null ? 0n : storedTenThousandths(raw));
  for (const r of ins) at(Number(r.partNo), Number(r.wID)).ledger += exact(r.total);
  for (const r of outs) at(Number(r.partNo), Number(r.wID)).ledger -= exact(r.total);
  for (const r of lots) {
    const t = at(Number(r.partNo), Number(r.wID));
    t.lots = exact(r.total);
    t.held = exact(r.held ?? 0);
  }
  const actualCounts = new Map<number, number>();
  const stocked = new Set<number>();
  for (const r of levels) {
    const t = at(Number(r.partNo), Number(r.wID));
    t.summary = exact(r.inStock);
    t.onHold = exact(r.onHold);
    actualCounts.set(t.wID, (actualCounts.get(t.wID) ?? 0) + 1);
    stocked.add(t.partNo);
  }
  actualCounts.set(0, stocked.size);
  const storedCounts = new Map<number, number>(rows.stockCounts.map((r) => [Number(r.scope), Number(r.items)]));
  const countMismatches: CountMismatch[] = [];
  for (const scope of new Set([...actualCounts.keys(), ...storedCounts.keys()])) {
    const actual = actualCounts.get(scope) ?? 0;
    const stored = storedCounts.get(scope) ?? null;
    if ((stored ?? 0) !== actual) countMismatches.push({ scope, stored, actual });
  }
  const mismatches: LedgerMismatch[] = [];
  for (const t of totals.values()) {
    const summary = t.summary ?? 0n;
    if (t.ledger !== t.lots || t.lots !== summary || t.held !== (t.onHold ?? 0n) || (t.summary === null && t.ledger !== 0n)) {
      mismatches.push({
        partNo: t.partNo,
        wID: t.wID,
        ledger: formatDecimal(t.ledger),
        lots: formatDecimal(t.lots),
        summary: t.summary === null ? null : formatDecimal(t.summary),
        heldLots: formatDecimal(t.held),
        summaryOnHold: t.onHold === null ? null : formatDecimal(t.onHold),
      });
    }
  }
  const listMismatches = listCountMismatches(rows, levels);
  const documents = documentMismatches(rows);
  const documentStates = documentStateMismatches(rows);
  const ok = mismatches.length === 0 && countMismatches.length === 0 && listMismatches.length === 0 && documents.length === 0 && documentStates.length === 0;
  return { ok, checked: totals.size, mismatches, countMismatches, listCountMismatches: listMismatches, documentMismatches: documents, documentStateMismatches: documentStates };
}
