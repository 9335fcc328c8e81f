import type { EntityManager } from 'typeorm';
import type { TotalStatement } from './total-statement.js';
import type { Statement } from './statements.js';
import { upsertAddStatement } from './upsert.js';

/** A DataSource, EntityManager or QueryRunner: anything that runs a query outside or inside a transaction. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Slot rows per counter of `list_count` (see src/inventory/list-counts.ts). */
export const COUNTER_SLOTS = 16;

/** Add `by` (negative to subtract) to the counter (list, scope). */
export interface CountChange {
  list: string;
  scope: string;
  by: number;
}

/**
 * The counter changes of one transaction, gathered over the whole of it and
 * written with its commit (`statements`), all of the transaction's in one
 * statement per table: a TransactionContext's `counts`. A transaction that
 * makes several changes (a Batch: one per operation) then takes its counter
 * rows once and in primary-key order, as a single change does; written
 * operation by operation, two batches would take the rows of their
 * operations' warehouses in their own orders and could deadlock each other.
 * The counter rows are also held for the shortest time, from the end of the
 * transaction to its commit.
 */
export class GatheredCounts {
  /** list_count changes. */
  private readonly lists: CountChange[] = [];
  /** stock_count: new stock_level rows per scope (0: the item's first in any warehouse). */
  private readonly stock = new Map<number, number>();

  /** Adds counter changes (list, scope, by). */
  add(changes: CountChange[]): void {
    this.lists.push(...changes);
  }

  /**
   * Counts one new stock_level row in `stock_count`: in its warehouse's row,
   * and in scope 0 when it is the item's first in any warehouse. The
   * warehouses' rows are single hot rows, so they are taken once per
   * transaction, in scope order, and held only until the commit.
   */
  addStockRow(wID: number, first: boolean): void {
    if (first) this.stock.set(0, (this.stock.get(0) ?? 0) + 1);
    this.stock.set(wID, (this.stock.get(wID) ?? 0) + 1);
  }

  /**
   * What was gathered, as the statements that write it just before the
   * commit: the stock_count rows first, in scope order, then the list_count
   * rows, each table in one statement.
   */
  statements(m: EntityManager): Statement[] {
    const out: Statement[] = [];
    if (this.stock.size) out.push(stockCountsStatement(m, this.stock));
    const lists = countsStatement(m, this.lists);
    if (lists) out.push(lists);
    return out;
  }
}

/**
 * Adds counter changes at once, outside a transaction of TransactionRunner
 * (fixtures, fills); a transaction gathers them in its context instead
 * (`ctx.counts.add`).
 */
export async function addCounts(m: EntityManager, changes: CountChange[]): Promise<void> {
  const statement = countsStatement(m, changes);
  if (statement) await m.query(statement.sql, statement.params);
}

function stockCountsStatement(m: EntityManager, stock: Map<number, number>): Statement {
  const rows = [...stock].sort(([a], [b]) => a - b).map(([value, by]) => ({ value, by }));
  return upsertAddStatement(m, 'stock_count', 'scope', 'items', rows);
}

/**
 * Counter changes as one statement: each counter's net change goes to one
 * slot row picked at random (created when missing), the rows in primary-key
 * order, so that two writers lock counter rows in the same order and never
 * deadlock each other over them. Null when nothing changes.
 */
function countsStatement(m: EntityManager, changes: CountChange[]): Statement | null {
  const net = new Map<string, CountChange>();
  for (const c of changes) {
    const key = `${c.list}\n${c.scope}`;
    const seen = net.get(key);
    if (seen) seen.by += c.by;
    else net.set(key, { ...c });
  }
  const rows = [...net.values()]
    .filter((c) => c.by !== 0)
    .map((c) => ({ ...c, slot: Math.floor(Math.random() * COUNTER_SLOTS) }))
    .sort((a, b) => compare(a.list, b.list) || compare(a.scope, b.scope) || a.slot - b.slot);
  if (!rows.length) return null;
  const values = rows.map(() => '(?, ?, ?, ?)').join(', ');
  const params = rows.flatMap((r) => [r.list, r.scope, r.slot, r.by]);
  if (m.connection.options.type === 'mysql') {
    return { sql: `INSERT INTO list_count (list, scope, slot, n) VALUES ${values} ON DUPLICATE KEY UPDATE n = n + VALUES(n)`, params };
  }
  return { sql: `INSERT INTO list_count (list, scope, slot, n) VALUES ${values} ON CONFLICT (list, scope, slot) DO UPDATE SET n = n + excluded.n`, params };
}

/** Byte order (the ascii_bin collation's), not the locale's. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The counters of one list (only these scopes, when given): scope → value. One primary-key range, no row of the list read. */
export async function readCounts(db: Queryable, list: string, scopes?: string[]): Promise<Map<string, number>> {
  if (scopes && !scopes.length) return new Map();
  const { sql, params } = countsQuery(list, scopes);
  return countsOf(await db.query(sql, params));
}

/**
 * The sum of a list's counters (only these scopes, when given, not empty;
 * only those whose scope passes `counted`) as a statement and the reading of
 * its rows: for a page that sends it with its first read (paginate's
 * TotalStatement).
 */
export function countsTotal(list: string, scopes?: string[], counted?: (scope: string) => boolean): TotalStatement {
  return { ...countsQuery(list, scopes), total: (rows) => sumCounts(countsOf(rows), counted) };
}

/** The statement of readCounts (scopes, when given, not empty). */
function countsQuery(list: string, scopes?: string[]): { sql: string; params: unknown[] } {
  const only = scopes ? ` AND scope IN (${scopes.map(() => '?').join(', ')})` : '';
  return { sql: `SELECT scope, SUM(n) AS n FROM list_count WHERE list = ?${only} GROUP BY scope`, params: [list, ...(scopes ?? [])] };
}

/** The rows of countsQuery as scope → value. */
function countsOf(rows: Array<Record<string, unknown>>): Map<string, number> {
  return new Map(rows.map((r) => [String(r.scope), Number(r.n)]));
}

/** The sum of a list's counters whose scope passes `counted`. */
export function sumCounts(counts: Map<string, number>, counted: (scope: string) => boolean = () => true): number {
  let total = 0;
  for (const [scope, n] of counts) if (counted(scope)) total += n;
  return total;
}
