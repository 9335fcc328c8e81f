import type { EntityManager } from 'typeorm';

/**
 * Lets the event loop turn during long work in a transaction (EXTENSIONS
 * "Warehouse operations": while a batch runs, `/health/live` answers within
 * 250 ms). On MySQL/MariaDB the JS work around thousands of lots (rows
 * turned into entities, ledger rows, statements) runs between the queries'
 * round trips in stretches of hundreds of milliseconds; loops over lots call
 * `letOthersRun(m)` between steps, and once `TURN_MS` have passed since the
 * loop last turned for one of them it waits for a turn (setImmediate).
 *
 * Not on SQLite: better-sqlite3 waits for a busy lock synchronously, so a
 * write made on another connection of this process (a token, an idempotency
 * record, another instance) while a transaction holds the write lock and has
 * let the loop turn would block the loop itself until the busy timeout, and
 * the transaction could not go on. There a transaction keeps the loop.
 */

/** How long work may run before it lets the loop turn: well under the 250 ms a probe may wait. */
export const TURN_MS = 20;

let lastTurn = performance.now();

export async function letOthersRun(m: EntityManager): Promise<void> {
  if (performance.now() - lastTurn < TURN_MS || m.connection.driver.options.type !== 'mysql') return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastTurn = performance.now();
}
