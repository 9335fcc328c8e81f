import { Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { AppConfig } from '../config/config.js';
import { AppLogger } from '../http/logger.js';
import { AllocationsRepository, type DueAllocation } from './allocations.repository.js';
import { AllocationsService } from './allocations.service.js';

/** How many due allocations one look reads; it looks again at once while it finds that many. */
const LOOK = 100;

/**
 * EXTENSIONS "Every stock state the spec names": an open allocation whose
 * `expiresAt` has passed is cancelled within 60 s of that time, its packed
 * units never (AllocationsService.expire; stock-documents.ts planExpiry).
 * Every instance looks every ALLOCATION_EXPIRY_INTERVAL_SECONDS (at most 30)
 * for allocations due (IX_allocation_expiry), and expires each in a
 * transaction of its own that takes its locks in the lock order and decides
 * on the allocation as it then is: when two instances find the same one, the
 * second finds nothing left to expire and records nothing, so each
 * allocation expires once, with one `allocation.expired` event. The database
 * is the only state: a restart loses nothing, and the first look after it
 * expires what fell due meanwhile.
 */
@Injectable()
export class AllocationExpiry implements OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly repository: AllocationsRepository,
    private readonly allocations: AllocationsService,
    private readonly config: AppConfig,
    @Optional() private readonly logger?: AppLogger,
  ) {}

  /** Starts looking, with a look at once (the service does, once it is up). */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.look(), this.config.allocationExpirySeconds * 1000);
    this.timer.unref();
    this.look();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One look, unless the last is still running. Never fails: a failure is logged, and the next look tries again. */
  private look(): void {
    if (this.running || this.stopped) return;
    this.running = this.expireDue()
      .then((expired) => {
        if (expired) this.logger?.log.info({ expired }, 'allocations: expired');
      })
      .catch((error: unknown) => this.logger?.log.warn({ err: error }, 'allocations: the expiry failed; the next look tries again'))
      .finally(() => (this.running = null));
  }

  /**
   * Expires every allocation due at `now`, each in its own transaction; how
   * many it expired. Each look of LOOK goes on past the last one read, so
   * allocations that fail (and are tried again at the next look) hold up none
   * behind them.
   */
  async expireDue(now: Date = new Date()): Promise<number> {
    let expired = 0;
    let after: DueAllocation | undefined;
    for (;;) {
      const due = await this.repository.due(now, LOOK, after);
      for (const allocation of due) {
        if (this.stopped) return expired;
        try {
          if (await this.allocations.expire(allocation, now)) expired++;
        } catch (error) {
          // One allocation that fails (its item's contention past the retry budget, say) holds up none of
          // the others: the next look tries it again.
          this.logger?.log.warn({ err: error, allocationId: allocation.id }, 'allocations: this allocation did not expire; the next look tries again');
        }
      }
      if (due.length < LOOK) return expired;
      after = due[due.length - 1];
    }
  }
}
