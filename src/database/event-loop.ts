/**
 * Lets the event loop turn during long work in a transaction (EXTENSIONS
 * "Warehouse operations": whatever a batch holds, `/health/live` answers
 * within 250 ms while it runs). An operation over thousands of lots runs
 * stretches of JS (rows turned into entities, ledger rows, statements) and,
 * on SQLite, of synchronous statements, all chained by promises that are
 * already resolved: without a pause nothing else runs until the transaction
 * ends. Loops over lots call `letOthersRun(m)` between steps; once `TURN_MS`
 * have passed since the loop last turned, it waits for a turn (setImmediate).
 *
 * On SQLite this is safe because every write of the process waits for the
 * writer's turn asynchronously (TransactionRunner `run` and `alone`): none
 * meets the write lock this transaction holds and waits for it synchronously.
 */

/** How long work may run before it lets the loop turn: well under the 250 ms a probe may wait. */
export const TURN_MS = 20;

let lastTurn = performance.now();

/** Waits for a turn of the event loop when work has run `TURN_MS` since the last one. */
export async function letOthersRun(): Promise<void> {
  if (performance.now() - lastTurn < TURN_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastTurn = performance.now();
}
