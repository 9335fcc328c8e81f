import { Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { AppConfig } from '../config/config.js';
import { TransactionRunner } from '../database/transactions.js';
import { AppLogger } from '../http/logger.js';
import { SequencerRepository } from './sequencer.repository.js';

/** Rows one turn takes at most (plus the rest of the transactions it has started on). */
export const CLAIM_ROWS = 500;
/** The longest GET /Events waits for this instance's turn in progress before it reads. */
export const CATCH_UP_MS = 200;
/** The sweeper's period: how late an event can be in the feed if the turn after its commit was lost (a crash). */
const SWEEP_MS = 1000;
/** Pruning: how often, and how many rows a statement deletes (small, so a delete never holds locks for long). */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_ROWS = 1000;
const PRUNE_STATEMENTS = 50;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Gives committed events their `seq`, the feed's order (EXTENSIONS "Events";
 * the argument is in docs/architecture.md, "Events and their order").
 *
 * Writers insert their events with seq NULL and never wait for one another
 * here. A turn of the sequencer runs in a transaction of its own that first
 * locks the one `event_sequence` row, then reads the events committed without
 * a seq, gives them lastSeq + 1, + 2, … (a transaction's events together, in
 * their order) and stores the new lastSeq; its commit publishes them all at
 * once. Turns are serialised by the row lock across every instance, so the
 * seqs visible at any moment are exactly 1 … lastSeq (less what was pruned):
 * a seq once read past is never filled in later.
 *
 * A turn runs right after every transaction that recorded events commits
 * (its transaction context's `afterCommit`), at most one every
 * EVENTS_TURN_GAP_MS (calls during a turn, or before the gap has passed, make
 * one turn after it: under load one turn numbers the commits of its gap
 * together, its six statements and the webhook relay's look after it shared
 * by all of them, instead of turns running back to back, each for the few
 * commits made during the one before; a reader waiting for the feed
 * (`caughtUp`), `settled` and shutdown do not wait for the gap),
 * and, in the service (`start`), every second as a sweeper, which
 * also heals a crash between a commit and its turn, and now and then prunes
 * events older than EVENTS_RETENTION_DAYS in small chunks.
 */
@Injectable()
export class EventSequencer implements OnModuleDestroy {
  private running: Promise<void> | null = null;
  private again = false;
  /** When the last turn started (performance.now(): a step of the wall clock moves no gap), and the timer of a turn waiting for its gap to pass since. */
  private lastStart = -Infinity;
  private deferred: NodeJS.Timeout | null = null;
  /** Calls of `soon` so far, and how many of them the turns finished so far covered (a turn covers the calls made before it started). */
  private asked = 0;
  private covered = 0;
  private waiters: Array<{ upTo: number; done: () => void }> = [];
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private lastPrune = 0;
  private readonly published: Array<() => void> = [];

  constructor(
    private readonly tx: TransactionRunner,
    private readonly config: AppConfig,
    private readonly events: SequencerRepository,
    @Optional() private readonly logger?: AppLogger,
  ) {}

  /** Starts the sweeper, with a turn at once (the service does, once it is up; the admin CLI does not). */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
    this.soon();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    // A turn waiting for its gap runs now, and one more after the last if a commit came during it: the events
    // committed here get their seqs before the instance stops (a failed turn leaves them to another's sweeper).
    if (this.deferred) this.schedule(true);
    this.stopped = true;
    await this.settled();
    if (this.covered < this.asked) await this.drain();
  }

  /**
   * A turn soon: at once, or once EVENTS_TURN_GAP_MS has passed since the
   * last one started, or after the turn in progress. Never fails: a failed
   * turn is logged and left to the sweeper.
   */
  soon(): void {
    if (this.stopped) return;
    this.asked++;
    this.schedule(false);
  }

  /**
   * Starts a turn, or leaves it to the turn in progress (`again`: one more
   * after it) or to the one waiting for its gap; `hurry` (a reader waits, or
   * the instance stops) starts a waiting one at once.
   */
  private schedule(hurry: boolean): void {
    if (this.running) {
      this.again = true;
      return;
    }
    const gap = this.config.eventsTurnGapMs;
    const wait = Math.min(gap, this.lastStart + gap - performance.now());
    if (this.deferred) {
      if (!hurry) return;
      clearTimeout(this.deferred);
      this.deferred = null;
    } else if (wait > 0 && !hurry) {
      this.deferred = setTimeout(() => {
        this.deferred = null;
        if (this.running) this.again = true;
        else this.turn();
      }, wait);
      this.deferred.unref();
      return;
    }
    this.turn();
  }

  /**
   * Resolves once every turn asked of this instance so far has run, or after
   * `maxMs`: GET /Events waits for it, so that a client reading the feed
   * right after its write's answer sees that write's event.
   */
  caughtUp(maxMs = CATCH_UP_MS): Promise<void> {
    if (this.covered >= this.asked) return Promise.resolve();
    // A turn waiting for its gap runs now; one in progress is followed at once by the next when it does not cover this reader (`turn`).
    if (this.deferred) this.schedule(true);
    return new Promise((resolve) => {
      const waiter = { upTo: this.asked, done: () => undefined as void };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      }, maxMs);
      waiter.done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(waiter);
    });
  }

  /** Calls `listener` after each turn that gave seqs to events (the webhook relay wakes up). */
  onPublished(listener: () => void): void {
    this.published.push(listener);
  }

  /** Resolves once no turn is in progress or waiting for its gap (tests, shutdown): a waiting one runs at once. */
  async settled(): Promise<void> {
    while (this.running || this.deferred) {
      if (this.deferred) this.schedule(true);
      await this.running;
    }
  }

  private turn(): void {
    this.lastStart = performance.now();
    this.again = false;
    this.running = this.drain().finally(() => {
      this.running = null;
      // A commit during the turn asked for one that nobody took yet: after the gap, or at once for a reader still waiting.
      if (this.again && !this.stopped) this.schedule(this.waiters.length > 0);
    });
  }

  private async drain(): Promise<void> {
    const upTo = this.asked;
    try {
      let claimed;
      do {
        claimed = await this.claim();
        if (claimed) for (const listener of this.published) listener();
      } while (claimed >= CLAIM_ROWS && !this.stopped);
    } catch (error) {
      this.logger?.log.error({ err: error }, 'events: giving seqs to committed events failed; the sweeper tries again');
    }
    // Even after a failure: a waiter must not wait for the sweeper (it reads what is there).
    this.covered = Math.max(this.covered, upTo);
    const ready = this.waiters.filter((w) => w.upTo <= this.covered);
    if (ready.length) {
      this.waiters = this.waiters.filter((w) => w.upTo > this.covered);
      for (const w of ready) w.done();
    }
  }

  /** One turn (see the class); how many rows it started from. */
  async claim(): Promise<number> {
    return this.tx.run(async (ctx) => {
      const lastSeq = await this.events.lockLastSeq(ctx);
      const seen = await this.events.unsequenced(ctx, CLAIM_ROWS);
      if (!seen.length) return 0;
      // Every row of each transaction seen (they committed together), so that its events take consecutive seqs.
      // Fewer than CLAIM_ROWS rows are all there are in this snapshot, every transaction's rows with them.
      const claimed = seen.length < CLAIM_ROWS ? seen : await this.events.unsequencedOf(ctx, [...new Set(seen.map((e) => e.unitId))]);
      const firstOf = new Map<string, number>();
      for (const e of claimed) firstOf.set(e.unitId, Math.min(firstOf.get(e.unitId) ?? Infinity, e.eventNo));
      claimed.sort((a, b) => firstOf.get(a.unitId)! - firstOf.get(b.unitId)! || a.pos - b.pos);
      let seq = lastSeq;
      for (let i = 0; i < claimed.length; i += CLAIM_ROWS) {
        const chunk = claimed.slice(i, i + CLAIM_ROWS);
        await this.events.number(ctx, chunk, seq + 1);
        seq += chunk.length;
      }
      await this.events.setLastSeq(ctx, seq);
      return seen.length;
    });
  }

  /**
   * Deletes the events older than EVENTS_RETENTION_DAYS, oldest seq first,
   * at most PRUNE_ROWS per statement; stops at the first younger one. Returns
   * how many were deleted.
   */
  async prune(now = new Date()): Promise<number> {
    const cutoff = now.getTime() - this.config.eventsRetentionDays * DAY_MS;
    let deleted = 0;
    for (let i = 0; i < PRUNE_STATEMENTS && !this.stopped; i++) {
      const oldest = await this.events.oldest(PRUNE_ROWS);
      const young = oldest.findIndex((e) => e.occurred.getTime() >= cutoff);
      const old = young < 0 ? oldest : oldest.slice(0, young);
      if (!old.length) break;
      await this.tx.run((ctx) => this.events.deleteSeqs(ctx, old[0].seq!, old[old.length - 1].seq!));
      deleted += old.length;
      if (young >= 0) break;
    }
    return deleted;
  }

  /** Every second: a turn when a committed event waits for its seq (a cheap read first), and pruning when it is due. */
  private async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!this.running && (await this.events.anyUnsequenced())) this.soon();
      if (Date.now() - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = Date.now();
        const deleted = await this.prune();
        if (deleted) this.logger?.log.info({ deleted }, 'events: pruned events older than EVENTS_RETENTION_DAYS');
      }
    } catch (error) {
      this.logger?.log.warn({ err: error }, 'events: the sweep failed; it runs again in a second');
    }
  }
}
