import { Conflict } from '../errors.js';
import type { DatabaseMetrics, RetryCause } from './reporting.js';

/** Seconds a client is asked to wait before retrying after TooMuchContention: longer than a burst's lock waits, short for a client. */
export const CONTENTION_RETRY_AFTER_SECONDS = 1;

export class TooMuchContention extends Conflict {
  constructor() {
    super('The request met concurrent changes and could not be completed; retry it.', { reason: 'concurrent_change' }, CONTENTION_RETRY_AFTER_SECONDS);
  }
}

/** Default of TX_RETRY_BUDGET_MS: how long a write may spend retrying transient failures before the client gets 409. */
export const DEFAULT_RETRY_BUDGET_MS = 2000;
/**
 * The default on a Galera node instead (docs/deployment.md): two nodes changing
 * the same stock row commit in turn, the later one's certification failing at
 * COMMIT, and one hot item manages some 25–35 commits a second across three
 * nodes on a small machine, so a burst on it needs seconds of retries.
 */
export const GALERA_RETRY_BUDGET_MS = 15_000;

/** The retry budget in force and where it came from, for the start-up log. */
export interface RetryBudget {
  ms: number;
  source: 'TX_RETRY_BUDGET_MS' | 'default' | 'Galera default';
}

/** What a failed attempt of a transaction met, as `db_transaction_retries_total` labels it. */

/** Whoever counts the transient failures (the metrics, as database/'s DatabaseMetrics). */
export type RetryObserver = Pick<DatabaseMetrics, 'retried'>;

/**
 * Attempts made whatever the budget: an attempt may itself wait long before it
 * fails (SQLite's BEGIN IMMEDIATE waits out the busy timeout behind another
 * process's writer), and the budget must not cut such a wait short to one try.
 */
const MIN_ATTEMPTS = 6;
/** Full-jitter exponential backoff (AWS's "Exponential Backoff And Jitter"): attempt n sleeps a random time below min(CAP, BASE × 2^n). */
const BACKOFF_BASE_MS = 5;
const BACKOFF_CAP_MS = 250;

/**
 * Runs `attempt` until it succeeds, fails for good, or meets transient
 * failures for longer than `budgetMs` (and at least MIN_ATTEMPTS times):
 * between attempts a random pause below min(250 ms, 5 ms × 2^n) (full
 * jitter, so that writers who collided do not collide again in step). An
 * attempt must leave nothing behind when it fails (its transaction rolled
 * back). Each transient failure is told to `observer`; when the budget is
 * spent the client gets TooMuchContention (409), never the driver's error.
 */
export async function retryTransient<T>(attempt: () => Promise<T>, budgetMs: number, observer?: RetryObserver): Promise<T> {
  const started = Date.now();
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const cause = transientCause(error);
      if (!cause) throw error;
      observer?.retried(cause);
      const pause = Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** n);
      if (n + 1 >= MIN_ATTEMPTS && Date.now() - started + pause > budgetMs) throw new TooMuchContention();
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

/**
 * Deadlock (1213, also Galera's certification failure), lock wait timeout
 * (1205), MySQL Group Replication's rollback (3101), TiDB's write conflict
 * (9007), or SQLite busy/locked: worth running the transaction again.
 */
export function isTransient(error: unknown): boolean {
  return transientCause(error) !== null;
}

/** Which transient failure `error` is, or null when it is not one. */
export function transientCause(error: unknown): RetryCause | null {
  const e = ((error as { driverError?: unknown })?.driverError ?? error) as { errno?: unknown; code?: unknown } | null;
  if (!e) return null;
  if (e.errno === 1213) return 'deadlock';
  if (e.errno === 1205) return 'lock_wait_timeout';
  if (e.errno === 3101) return 'group_replication';
  if (e.errno === 9007) return 'write_conflict';
  return typeof e.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(e.code) ? 'busy' : null;
}
