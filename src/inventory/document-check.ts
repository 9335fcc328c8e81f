import { formatDecimal, storedTenThousandths } from '../quantity.js';
import type { DocumentStateRow, DocumentSum, LedgerCheckRows } from './ledger-check.repository.js';

/** A stock_level figure that disagrees with what is left on the open documents it counts. */
export interface DocumentMismatch {
  partNo: number;
  wID: number;
  figure: 'committed' | 'packed' | 'onOrder' | 'aSN';
  /** The row's figure (null: no stock_level row) and the documents' sum. */
  summary: string | null;
  documents: string;
}

const FIGURES = ['committed', 'packed', 'onOrder', 'aSN'] as const;

/**
 * The documents' invariants (EXTENSIONS "Every stock state the spec names"),
 * for every item and warehouse: `committed` + `packed` = what is left on
 * open allocations (each figure on its own: the unpacked part, the packed
 * part), `onOrder` and `aSN` = what is left on open expectations by stage.
 * From the rows the ledger check read in its snapshot (LedgerCheckRepository).
 */
export function documentMismatches(rows: Pick<LedgerCheckRows, 'levels' | 'allocations' | 'expectations'>): DocumentMismatch[] {
  const key = (r: { partNo: number; wID: number }) => `${Number(r.partNo)}:${Number(r.wID)}`;
  const sums = new Map<string, { partNo: number; wID: number; sums: Record<(typeof FIGURES)[number], bigint>; level: Record<(typeof FIGURES)[number], bigint> | null }>();
  const at = (r: { partNo: number; wID: number }) => {
    let entry = sums.get(key(r));
    if (!entry) sums.set(key(r), (entry = { partNo: Number(r.partNo), wID: Number(r.wID), sums: { committed: 0n, packed: 0n, onOrder: 0n, aSN: 0n }, level: null }));
    return entry;
  };
  const exact = (raw: string | number | null | undefined) => (raw === null || raw === undefined ? 0n : storedTenThousandths(raw));
  for (const doc of [...rows.allocations, ...rows.expectations] as DocumentSum[]) {
    const entry = at(doc);
    for (const figure of FIGURES) entry.sums[figure] += exact(doc[figure]);
  }
  for (const level of rows.levels) {
    at(level).level = { committed: exact(level.committed), packed: exact(level.packed), onOrder: exact(level.onOrder), aSN: exact(level.aSN) };
  }
  const out: DocumentMismatch[] = [];
  for (const { partNo, wID, sums: documents, level } of sums.values()) {
    for (const figure of FIGURES) {
      const summary = level ? level[figure] : 0n;
      if (summary !== documents[figure] || (!level && documents[figure] !== 0n)) {
        out.push({ partNo, wID, figure, summary: level ? formatDecimal(summary) : null, documents: formatDecimal(documents[figure]) });
      }
    }
  }
  return out.sort((a, b) => a.partNo - b.partNo || a.wID - b.wID || FIGURES.indexOf(a.figure) - FIGURES.indexOf(b.figure));
}

/** A document whose own figures or state break its rules: its kind, id, state (and stage), and its figures. */
export interface DocumentStateMismatch {
  kind: 'allocation' | 'expectation';
  id: number;
  state: string;
  stage?: string;
  units: string;
  /** An allocation's. */
  shipped?: string;
  packed?: string;
  /** An expectation's. */
  received?: string;
}

/**
 * The documents' own rules (EXTENSIONS "Every stock state the spec names"):
 * an allocation ships and packs no more than its units, is open while
 * something is left to ship and done once nothing is; an expectation is open
 * while something is left to receive and done once nothing is. A document
 * closed too early, with the stock level's figure lowered to match, passes
 * the sums of `documentMismatches` and fails here. The rows are found by the
 * ledger check's statements (LedgerCheckRepository); this reports them.
 */
export function documentStateMismatches(rows: Pick<LedgerCheckRows, 'badDocuments'>): DocumentStateMismatch[] {
  const amount = (raw: string | number | null) => formatDecimal(storedTenThousandths(raw ?? 0));
  return rows.badDocuments.map((r: DocumentStateRow) =>
    r.kind === 'allocation'
      ? { kind: r.kind, id: Number(r.id), state: r.state, units: amount(r.units), shipped: amount(r.done), packed: amount(r.packed) }
      : { kind: r.kind, id: Number(r.id), state: r.state, stage: r.stage ?? undefined, units: amount(r.units), received: amount(r.done) },
  );
}
