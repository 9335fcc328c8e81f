import type { EntityManager } from 'typeorm';

/** A DataSource, EntityManager or QueryRunner: anything that runs a query outside or inside a transaction. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Slot rows per counter of `list_count` (see migrations/list-counters.ts). */
export const COUNTER_SLOTS = 16;

/** Add `by` (negative to subtract) to the counter (list, scope). */
export interface CountChange {
  list: string;
  scope: string;
  by: number;
}

/** Transactions whose counter changes wait for their commit (see `deferCounts`): the changes gathered so far. */
const deferred = new WeakMap<EntityManager, CountChange[]>();

/**
 * From now on, counter changes made through `m` (a transaction's manager)
 * are gathered and written by `flushCounts` just before the commit, all of
 * the transaction's in one statement. A transaction that makes several
 * changes (a Batch: one per operation) then takes its counter rows once and in
 * primary-key order, as a single change does; written operation by operation,
 * two batches would take the rows of their operations' warehouses in their
 * own orders and could deadlock each other. The counter rows are also held
 * for the shortest time, from the end of the transaction to its commit.
 */
export function deferCounts(m: EntityManager): void {
  deferred.set(m, []);
}

/** Writes the changes gathered for `m` since `deferCounts` (in its transaction) and stops gathering. */
export async function flushCounts(m: EntityManager): Promise<void> {
  const changes = deferred.get(m);
  deferred.delete(m);
  if (changes?.length) await writeCounts(m, changes);
}

/** Forgets the changes gathered for `m` (its transaction rolled back). */
export function dropCounts(m: EntityManager): void {
  deferred.delete(m);
}

/**
 * Adds counter changes in the caller's transaction: at its commit when the
 * transaction gathers them (`deferCounts`, as every transaction of
 * TransactionRunner does), else at once.
 */
export async function addCounts(m: EntityManager, changes: CountChange[]): Promise<void> {
  const gathered = deferred.get(m);
  if (gathered) gathered.push(...changes);
  else await writeCounts(m, changes);
}

/**
 * Applies counter changes as one statement: each counter's net change goes
 * to one slot row picked at random (created when missing), the rows in
 * primary-key order, so that two writers lock counter rows in the same order
 * and never deadlock each other over them.
 */
async function writeCounts(m: EntityManager, changes: CountChange[]): Promise<void> {
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
  if (!rows.length) return;
  const values = rows.map(() => '(?, ?, ?, ?)').join(', ');
  const params = rows.flatMap((r) => [r.list, r.scope, r.slot, r.by]);
  if (m.connection.options.type === 'mysql') {
    await m.query(`INSERT INTO list_count (list, scope, slot, n) VALUES ${values} ON DUPLICATE KEY UPDATE n = n + VALUES(n)`, params);
  } else {
    await m.query(`INSERT INTO list_count (list, scope, slot, n) VALUES ${values} ON CONFLICT (list, scope, slot) DO UPDATE SET n = n + excluded.n`, params);
  }
}

/** Byte order (the ascii_bin collation's), not the locale's. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The counters of one list (only these scopes, when given): scope → value. One primary-key range, no row of the list read. */
export async function readCounts(db: Queryable, list: string, scopes?: string[]): Promise<Map<string, number>> {
  if (scopes && !scopes.length) return new Map();
  const only = scopes ? ` AND scope IN (${scopes.map(() => '?').join(', ')})` : '';
  const rows: Array<{ scope: string; n: string | number }> = await db.query(
    `SELECT scope, SUM(n) AS n FROM list_count WHERE list = ?${only} GROUP BY scope`,
    [list, ...(scopes ?? [])],
  );
  return new Map(rows.map((r) => [r.scope, Number(r.n)]));
}

/** The sum of a list's counters whose scope passes `counted`. */
export function sumCounts(counts: Map<string, number>, counted: (scope: string) => boolean = () => true): number {
  let total = 0;
  for (const [scope, n] of counts) if (counted(scope)) total += n;
  return total;
}
