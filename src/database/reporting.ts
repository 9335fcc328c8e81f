import type { Logger } from 'pino';

/** Where a list was read: the replica; the primary because it was asked for (or no replica is set); the primary because the replica failed or is resting. */
export type ListReadSource = 'replica' | 'primary' | 'fallback';

/** What a failed attempt of a transaction met, as `db_transaction_retries_total` labels it. */
export type RetryCause = 'deadlock' | 'lock_wait_timeout' | 'group_replication' | 'write_conflict' | 'busy';

/*
 * What database/ reports, as interfaces (DI tokens) of its own, so that it
 * imports no layer above it: the metrics implement DatabaseMetrics
 * (MetricsModule provides it), the process logger is DatabaseLog (HttpModule
 * provides it). Both are optional wherever they are injected: the admin CLI
 * runs without metrics and without the HTTP logger.
 */

/** The counts database/ keeps: list reads by where they were served, transient failures of a transaction by cause. */
export abstract class DatabaseMetrics {
  abstract listRead(source: ListReadSource): void;
  abstract retried(cause: RetryCause): void;
}

/** The log database/ writes to (the read replica's outages and recoveries). */
export abstract class DatabaseLog {
  abstract readonly log: Logger;
}
