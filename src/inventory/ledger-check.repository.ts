import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inSnapshot } from '../database/snapshot.js';

/** A sum of units per item and warehouse (`held`: of the held lots), as the database gives it. */
export interface UnitSum {
  partNo: number;
  wID: number;
  total: string | number;
  held?: string | number;
}

/** A stock_level row's figures. */
export interface LevelRow {
  partNo: number;
  wID: number;
  inStock: string | number;
  onHold: string | number;
  committed: string | number;
  packed: string | number;
  onOrder: string | number;
  aSN: string | number;
}

/** What is left on the open documents of an item in a warehouse, by the stock_level figure it counts in. */
export interface DocumentSum {
  partNo: number;
  wID: number;
  committed?: string | number | null;
  packed?: string | number | null;
  onOrder?: string | number | null;
  aSN?: string | number | null;
}

/** A document whose own figures or state break its rules (see `BAD_ALLOCATIONS`, `BAD_EXPECTATIONS`). */
export interface DocumentStateRow {
  kind: 'allocation' | 'expectation';
  id: number;
  state: string;
  /** The expectation's stage; null for an allocation. */
  stage: string | null;
  units: string | number;
  /** An allocation's shipped and packed; an expectation's received (packed null). */
  done: string | number;
  packed: string | number | null;
}

/**
 * Allocations that break their own rules: units > 0; shipped and packed not
 * below 0 and together within units; open with something left to ship, done
 * with everything shipped, or cancelled; no other state. Amounts are whole
 * ten-thousandths: a tolerance of half of one covers SQLite's arithmetic in
 * doubles. At most 100 are named.
 */
const BAD_ALLOCATIONS =
  "SELECT 'allocation' AS kind, id, state, NULL AS stage, units, shipped AS done, packed FROM allocation" +
  " WHERE NOT (units > 0 AND shipped >= 0 AND packed >= 0 AND shipped + packed <= units + 0.00005" +
  " AND ((state = 'open' AND units - shipped > 0.00005) OR (state = 'done' AND ABS(units - shipped) <= 0.00005) OR state = 'cancelled'))" +
  ' ORDER BY id LIMIT 100';

/**
 * Expectations that break their own rules: units > 0; received not below 0;
 * stage ordered or shipped; open with something left to receive, done with
 * nothing left (a receipt may pass units), or cancelled; no other state.
 */
const BAD_EXPECTATIONS =
  "SELECT 'expectation' AS kind, id, state, stage, units, received AS done, NULL AS packed FROM expectation" +
  " WHERE NOT (units > 0 AND received >= 0 AND stage IN ('ordered', 'shipped')" +
  " AND ((state = 'open' AND units - received > 0.00005) OR (state = 'done' AND received - units >= -0.00005) OR state = 'cancelled'))" +
  ' ORDER BY id LIMIT 100';

/** Everything the ledger check compares, read in one snapshot. */
export interface LedgerCheckRows {
  /** Ledger units into each item and warehouse, and out of it. */
  ins: UnitSum[];
  outs: UnitSum[];
  /** The in-stock lots' units per item and warehouse, with the held part. */
  lots: UnitSum[];
  levels: LevelRow[];
  /** What is left on open allocations (committed: not packed; packed) and open expectations (onOrder: ordered; aSN: shipped), per item and warehouse. */
  allocations: DocumentSum[];
  expectations: DocumentSum[];
  /** Allocations and expectations whose own figures or state break their rules (at most 100 of each). */
  badDocuments: DocumentStateRow[];
  /** stock_count: items per scope (0: any warehouse). */
  stockCounts: Array<{ scope: number; items: number }>;
  /** What the list counters count: lots per warehouse, items (all, active), ledger rows per pair of warehouses, documents per warehouse. */
  lotCounts: Array<{ wID: number; n: number }>;
  items: { total: number; active: number } | undefined;
  ledgerPairs: Array<{ fromWid: number | null; toWid: number | null; n: number }>;
  /** Allocations and expectations per warehouse, every state (`list`: 'allocations' or 'expectations'). */
  documentCounts: Array<{ list: string; wID: number; n: number }>;
  /** The list counters as stored: their slots summed. */
  listCounts: Array<{ list: string; scope: string; n: number }>;
}

/**
 * The statements of the stock invariant's check (ledger-check.ts), every one
 * in one read snapshot (database/snapshot.ts), so that a change committing
 * between two of them cannot show as a false mismatch. Reads every row of the
 * tables it sums: for `ledger:check`, the tests, the benchmark and the soak.
 */
@Injectable()
export class LedgerCheckRepository {
  constructor(private readonly dataSource: DataSource) {}

  read(): Promise<LedgerCheckRows> {
    return inSnapshot(this.dataSource, async (q) => {
      const ins: UnitSum[] = await q.query('SELECT partNo, toWid AS wID, SUM(units) AS total FROM ledger_entry WHERE toWid IS NOT NULL GROUP BY partNo, toWid');
      const outs: UnitSum[] = await q.query('SELECT partNo, fromWid AS wID, SUM(units) AS total FROM ledger_entry WHERE fromWid IS NOT NULL GROUP BY partNo, fromWid');
      const lots: UnitSum[] = await q.query(
        'SELECT partNo, wID, SUM(units) AS total, SUM(CASE WHEN hold = 1 THEN units ELSE 0 END) AS held FROM lot WHERE active = 1 GROUP BY partNo, wID',
      );
      const levels: LevelRow[] = await q.query('SELECT partNo, wID, inStock, onHold, committed, packed, onOrder, aSN FROM stock_level');
      const allocations: DocumentSum[] = await q.query(
        "SELECT partNo, wID, SUM(units - shipped - packed) AS committed, SUM(packed) AS packed FROM allocation WHERE state = 'open' GROUP BY partNo, wID",
      );
      const expectations: DocumentSum[] = await q.query(
        "SELECT partNo, wID, SUM(CASE WHEN stage = 'ordered' THEN units - received ELSE 0 END) AS onOrder, SUM(CASE WHEN stage = 'shipped' THEN units - received ELSE 0 END) AS aSN" +
          " FROM expectation WHERE state = 'open' GROUP BY partNo, wID",
      );
      const badDocuments: DocumentStateRow[] = [...(await q.query(BAD_ALLOCATIONS)), ...(await q.query(BAD_EXPECTATIONS))];
      const stockCounts: LedgerCheckRows['stockCounts'] = await q.query('SELECT scope, items FROM stock_count');
      const lotCounts: LedgerCheckRows['lotCounts'] = await q.query('SELECT wID, COUNT(*) AS n FROM lot GROUP BY wID');
      const [items]: Array<LedgerCheckRows['items']> = await q.query('SELECT COUNT(*) AS total, SUM(CASE WHEN discontinued = 0 THEN 1 ELSE 0 END) AS active FROM item');
      const ledgerPairs: LedgerCheckRows['ledgerPairs'] = await q.query('SELECT fromWid, toWid, COUNT(*) AS n FROM ledger_entry GROUP BY fromWid, toWid');
      const documentCounts: LedgerCheckRows['documentCounts'] = await q.query(
        "SELECT 'allocations' AS list, wID, COUNT(*) AS n FROM allocation GROUP BY wID UNION ALL SELECT 'expectations' AS list, wID, COUNT(*) AS n FROM expectation GROUP BY wID",
      );
      const listCounts: LedgerCheckRows['listCounts'] = await q.query('SELECT list, scope, SUM(n) AS n FROM list_count GROUP BY list, scope');
      return { ins, outs, lots, levels, allocations, expectations, badDocuments, stockCounts, lotCounts, items, ledgerPairs, documentCounts, listCounts };
    });
  }
}
