import { Injectable, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppConfig } from '../config/config.js';
import { DomainError } from '../errors.js';
import { DatabaseLog, DatabaseMetrics } from './reporting.js';

/** What a list request asks for (the `Consistency` header): `strong` reads the primary, `eventual` (the default) may read the replica. */
export type Consistency = 'eventual' | 'strong';

/** After a replica failure, lists go to the primary for this long before the replica is tried again. */
export const REPLICA_REST_MS = 5000;
/** A replica read taking longer than this is given up and read from the primary (a replica that accepts connections but no longer answers). */
export const REPLICA_READ_TIMEOUT_MS = 5000;
/** Connecting to the replica, and the readiness ping. */
const REPLICA_CONNECT_TIMEOUT_MS = 2000;
/** A replica outage is logged as a warning at most this often. */
const WARN_EVERY_MS = 60_000;

class ReplicaTimeout extends Error {
  constructor() {
    super(`the replica did not answer in ${REPLICA_READ_TIMEOUT_MS} ms`);
  }
}

/**
 * Where list endpoints read (DATABASE_READ_URL). Routing is explicit: a list
 * service runs its reads through `run`, with the manager it is given; nothing
 * else ever sees the replica, so tokens, scope, point reads, idempotency,
 * locks and every read inside a write stay on the primary.
 *
 * Without a replica, or with `Consistency: strong`, `run` is the primary's
 * manager. Otherwise the replica's; when that read fails with anything but
 * the service's own refusal (a DomainError, e.g. a bad cursor), or takes
 * longer than REPLICA_READ_TIMEOUT_MS, the same read runs on the primary, and
 * the replica rests for REPLICA_REST_MS before it is tried again. A list
 * therefore never fails because of the replica; it can only be as stale as
 * the replica is behind, which the service does not bound (MariaDB reports
 * it as `Seconds_Behind_Master`; watch it).
 *
 * The replica's pool is connected in the background when a list or a health
 * check first needs it, and again after a failure of connecting: a replica
 * that is down when the service starts does not stop it, lists use the
 * primary until the replica answers, and the admin CLI (which shares this
 * module) never connects to it.
 */
@Injectable()
export class ListReads implements OnApplicationShutdown {
  private readonly url: string | null;
  private replica: DataSource | null = null;
  private connecting: Promise<void> | null = null;
  private restUntil = 0;
  private down = false;
  private lastWarning = 0;
  private closed = false;

  constructor(
    private readonly primary: DataSource,
    @Optional() config?: AppConfig,
    @Optional() private readonly metrics?: DatabaseMetrics,
    @Optional() private readonly logger?: DatabaseLog,
  ) {
    this.url = config?.databaseReadUrl ?? null;
  }

  /** Whether a replica is set (DATABASE_READ_URL). */
  get hasReplica(): boolean {
    return this.url !== null;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.connecting;
    if (this.replica?.isInitialized) await this.replica.destroy().catch(() => undefined);
  }

  /** Runs a list's reads on the replica or the primary, as described above. */
  async run<T>(consistency: Consistency, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.url || consistency === 'strong') {
      this.metrics?.listRead('primary');
      return work(this.primary.manager);
    }
    const replica = this.available();
    if (replica) {
      try {
        const result = await within(work(replica.manager), REPLICA_READ_TIMEOUT_MS);
        this.answered();
        this.metrics?.listRead('replica');
        return result;
      } catch (error) {
        if (error instanceof DomainError) throw error;
        this.failed(error);
      }
    }
    this.metrics?.listRead('fallback');
    return work(this.primary.manager);
  }

  /** For readiness: null without a replica, else whether it answers a ping now. A down replica is reported, never failed: lists go to the primary. */
  async status(): Promise<'up' | 'down' | null> {
    if (!this.url) return null;
    const replica = this.replica?.isInitialized ? this.replica : null;
    if (!replica) {
      this.connect();
      return 'down';
    }
    try {
      await within(replica.query('SELECT 1'), REPLICA_CONNECT_TIMEOUT_MS);
      this.answered();
      return 'up';
    } catch (error) {
      this.failed(error);
      return 'down';
    }
  }

  /** The replica when it is connected and not resting; otherwise null (and, when not connected, a connection attempt in the background). */
  private available(): DataSource | null {
    if (Date.now() < this.restUntil) return null;
    if (this.replica?.isInitialized) return this.replica;
    this.connect();
    return null;
  }

  private connect(): void {
    if (this.connecting || this.closed || !this.url) return;
    // A fresh DataSource each attempt: one whose initialize failed is not reused. No migrations: the replica gets the schema by replication.
    const replica = new DataSource({
      ...this.primary.options,
      url: this.url,
      migrations: [],
      migrationsRun: false,
      synchronize: false,
      connectTimeout: REPLICA_CONNECT_TIMEOUT_MS,
    } as typeof this.primary.options);
    this.connecting = replica
      .initialize()
      .then(async () => {
        if (this.closed) await replica.destroy();
        else this.replica = replica;
      })
      .catch((error: unknown) => this.failed(error))
      .finally(() => (this.connecting = null));
  }

  private answered(): void {
    if (!this.down) return;
    this.down = false;
    this.lastWarning = 0;
    this.logger?.log.info('The read replica answers again: lists read from it again');
  }

  private failed(error: unknown): void {
    this.restUntil = Date.now() + REPLICA_REST_MS;
    this.down = true;
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger?.log.warn({ reason: reason.slice(0, 200) }, 'The read replica failed: lists read from the primary until it answers again');
  }
}

/** `work`, or a ReplicaTimeout after `ms` (the work itself goes on and its result is dropped). */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReplicaTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
