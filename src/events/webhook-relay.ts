import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { AccessService } from '../auth/access.service.js';
import type { Caller } from '../auth/caller.js';
import { SecurityId } from '../auth/security-id.js';
import { AppConfig } from '../config/config.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { AppLogger } from '../http/logger.js';
import { Metrics } from '../metrics/metrics.js';
import type { WebhookSubscription } from './events.entities.js';
import type { EventResponseDto } from './events.responses.js';
import { EventsService } from './events.service.js';
import { afterFailure, LEASE_MS, RelayLoop, RENEW_BEFORE_MS } from './relay-timing.js';
import { EventSequencer } from './sequencer.js';
import { SequencerRepository } from './sequencer.repository.js';
import { type Attempt, WebhookPoster } from './webhook-post.js';
import { type SubscriptionState, WebhooksRepository } from './webhooks.repository.js';

export { ATTEMPT_MS, MAX_ANSWER_BYTES, signature } from './webhook-post.js';

/** Deliveries recorded together: at most this many, or after this long, in one transaction (a crash repeats at most these). */
const RECORD_EVERY = 100;
const RECORD_EVERY_MS = 500;
/** How often a turn measures webhook_oldest_undelivered_seconds. */
const LAG_EVERY_MS = 1000;
/** Subscriptions one look finds at most; events a worker reads (and delivers) at a time. */
const SUBSCRIPTIONS_PER_LOOK = 200;
const EVENTS_PER_TURN = 100;
/**
 * Workers (subscriptions in work) one instance runs at once. Each has one
 * connection at most, so a receiver that hangs holds one worker: a waiting
 * socket costs little, and the bound is set far above the subscriptions a
 * few hanging receivers stand for (EXTENSIONS: 200 hanging must not delay others).
 */
const MAX_WORKERS = 1000;

/** An attempt made, to be recorded: the event, its number for that event, the answer, when it was made, and its retry (null: none). */
interface Made {
  event: EventResponseDto;
  attempt: number;
  answer: Attempt;
  at: Date;
  nextTry: Date | null;
}

/**
 * Delivers each subscription's events (EXTENSIONS "Events" → "Webhooks"), in
 * every instance of the service.
 *
 * Subscriptions are independent: a scheduler loop looks for subscriptions
 * behind the feed, due and not held, claims each by a conditional UPDATE of
 * its lease and hands it to a worker of its own; it never waits on a
 * delivery, so a receiver that hangs holds only its own worker (up to
 * MAX_WORKERS at once). A worker reads its subscription's row again under the
 * lease (the position may have moved on another instance since the look),
 * delivers in seq order page by page until it is up to date or an attempt
 * fails, renews the lease before a POST when it runs low, records every
 * delivery, and only then gives the lease back: no other instance can start
 * from a position older than what was sent. A killed instance's lease lapses
 * after LEASE_MS.
 *
 * When the scheduler looks, and when a failed event is tried again (or
 * given up), is written in relay-timing.ts. Which events a
 * subscription receives is the feed's own rule (EventsService.page) for its
 * client's account as it is now: a disabled client, or one without
 * SecurityID 11, receives nothing. Deliveries in a row are recorded together,
 * up to RECORD_EVERY or RECORD_EVERY_MS, in one transaction (a failed attempt
 * at once), so a crash repeats at most those.
 */
@Injectable()
export class WebhookRelay implements OnModuleDestroy {
  private readonly owner = randomUUID();
  private lagMeasured = 0;
  private stopped = false;
  private started = false;
  /** Each subscription in work here, by id: its worker. */
  private readonly workers = new Map<number, Promise<void>>();
  private readonly poster: WebhookPoster;
  private readonly scheduler: RelayLoop;

  constructor(
    private readonly subscriptions: WebhooksRepository,
    private readonly sequence: SequencerRepository,
    private readonly tx: TransactionRunner,
    private readonly config: AppConfig,
    private readonly access: AccessService,
    private readonly events: EventsService,
    private readonly sequencer: EventSequencer,
    @Optional() private readonly metrics?: Metrics,
    @Optional() private readonly logger?: AppLogger,
  ) {
    this.poster = new WebhookPoster(config);
    this.scheduler = new RelayLoop(
      () => this.look(),
      (error) => this.logger?.log.warn({ err: error }, 'webhooks: a relay look failed; it runs again shortly'),
    );
  }

  /** Starts delivering (the service does, once it is up). */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.sequencer.onPublished(() => this.scheduler.nudge());
    this.scheduler.start();
  }

  /** Stops: the POSTs in flight are cut off (their events are tried again), the workers end, the leases are given back. */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    const stopping = this.scheduler.stop();
    this.poster.close();
    await stopping;
    await Promise.all(this.workers.values());
    if (this.started) {
      await this.tx.run((ctx) => this.subscriptions.releaseAll(ctx, this.owner)).catch(() => undefined);
    }
  }

  /** One look (`turn`), the lag gauge at most once a second: whether to look again at once (it started workers and has room for more). */
  private async look(): Promise<boolean> {
    const measure = Date.now() - this.lagMeasured >= LAG_EVERY_MS;
    if (measure) this.lagMeasured = Date.now();
    const started = await this.turn(measure);
    return started > 0 && this.workers.size < MAX_WORKERS;
  }

  /**
   * One look for work: the subscriptions behind the feed, due, and free to
   * claim, each claimed and handed to a worker of its own (not awaited); how
   * many were. `measure`: also set the lag gauge.
   */
  async turn(measure = true): Promise<number> {
    const now = new Date();
    const lastSeq = await this.sequence.lastSeq();
    const found = await this.subscriptions.due(now, lastSeq, SUBSCRIPTIONS_PER_LOOK);
    const due = found.filter((s) => !this.workers.has(s.id)).slice(0, Math.max(0, MAX_WORKERS - this.workers.size));
    const claimed = await Promise.all(due.map((s) => this.claimAndStart(s)));
    if (measure) await this.measureLag();
    return claimed.filter(Boolean).length;
  }

  /** Claims the subscription and starts its worker; whether it did. */
  private async claimAndStart(sub: Pick<WebhookSubscription, 'id' | 'clientId'>): Promise<boolean> {
    // A disabled client (or one without SecurityID 11) receives nothing: no claim is written for it, and the
    // subscription is set aside until its account may have changed (ACCOUNT_CACHE_SECONDS), so that the looks for
    // work, SUBSCRIPTIONS_PER_LOOK at a time, are not filled with subscriptions that cannot be served.
    const caller = await this.access.callerOf(sub.clientId);
    if (this.stopped) return false;
    if (!caller || !caller.can(SecurityId.ItemMasterList)) {
      const now = new Date();
      const until = new Date(now.getTime() + Math.max(1, this.config.accountCacheSeconds) * 1000);
      await this.write(sub.id, false, (ctx) => this.subscriptions.setAside(ctx, sub.id, this.owner, until, now));
      return false;
    }
    const claimedAt = Date.now();
    if (!(await this.claim(sub.id))) return false;
    const worker = this.work(sub.id, caller, claimedAt + LEASE_MS)
      .catch((error) => this.logger?.log.warn({ err: error, subscriptionId: sub.id }, 'webhooks: a delivery worker failed; the subscription is taken up again'))
      .finally(() => this.workers.delete(sub.id));
    this.workers.set(sub.id, worker);
    return true;
  }

  /**
   * A subscription's worker, while this instance holds its lease: pages of
   * its events until it is up to date, an attempt failed (its retry is set),
   * the service stops or the subscription is gone; then every delivery is
   * recorded and the lease given back. The position is read again under the
   * lease, never taken from the look: another instance may have moved it
   * since (delivering from an older one would send events twice, out of order).
   */
  private async work(id: number, caller: Caller, leaseUntil: number): Promise<void> {
    const lease = { until: leaseUntil };
    try {
      let who: Caller | null = caller;
      while (!this.stopped && who && who.can(SecurityId.ItemMasterList)) {
        const lastSeq = await this.sequence.lastSeq();
        const sub = await this.subscriptions.held(id, this.owner);
        if (!sub || sub.afterSeq >= lastSeq || (sub.nextTry && sub.nextTry.getTime() > Date.now())) return;
        if (!(await this.deliver(sub, who, lastSeq, lease))) return;
        who = await this.access.callerOf(sub.clientId);
      }
    } finally {
      await this.update(id, { leaseOwner: null, leaseUntil: null }).catch(() => undefined);
    }
  }

  /**
   * Delivers a page of the subscription's events and records them; whether
   * the page went through whole with more to come. Stops at a failure (to be
   * retried), at shutdown, or when the subscription is gone.
   */
  private async deliver(sub: WebhookSubscription, caller: Caller, lastSeq: number, lease: { until: number }): Promise<boolean> {
    const types = sub.types === null ? undefined : (JSON.parse(sub.types) as string[]).join(',');
    const page = await this.events.page(caller, { after: sub.afterSeq, limit: EVENTS_PER_TURN, types }, 'strong');
    let attempt = sub.attempt;
    // Deliveries not yet recorded (recorded together, with the position after the last of them).
    const delivered: Made[] = [];
    const flush = (): Promise<boolean> =>
      delivered.length ? this.record(sub.id, { afterSeq: delivered[delivered.length - 1].event.seq, attempt: 0, nextTry: null }, delivered.splice(0)) : Promise.resolve(true);
    for (const event of page.value) {
      if (this.stopped) break;
      if (lease.until - Date.now() < RENEW_BEFORE_MS) {
        // Renews the claim; no row: deleted meanwhile, stop at once.
        const until = Date.now() + LEASE_MS;
        if (!(await this.update(sub.id, { leaseUntil: new Date(until) }))) return false;
        lease.until = until;
      }
      const at = new Date();
      const answer = await this.poster.post(sub, event);
      if (this.stopped && answer.status === null) break; // cut off by the shutdown: not an attempt
      attempt++;
      if (answer.status !== null && answer.status >= 200 && answer.status < 300) {
        delivered.push({ event, attempt, answer, at, nextTry: null });
        this.metrics?.webhookDelivery('delivered');
        attempt = 0;
        if ((delivered.length >= RECORD_EVERY || Date.now() - delivered[0].at.getTime() >= RECORD_EVERY_MS) && !(await flush())) return false;
        continue;
      }
      if (!(await flush())) return false;
      const { nextTry, error } = afterFailure(attempt, this.config.webhookRetrySeconds, answer);
      // Given up (no next try): the position moves past the event; else the retry is set.
      const state = nextTry ? { attempt, nextTry } : { afterSeq: event.seq, attempt: 0, nextTry: null };
      const moved = await this.record(sub.id, state, [{ event, attempt, answer: { ...answer, error }, at, nextTry }]);
      this.metrics?.webhookDelivery(nextTry ? 'retry' : 'failed');
      if (!moved) return false;
      if (nextTry) {
        this.scheduler.wakeAt(nextTry);
        return false;
      }
      attempt = 0;
    }
    if (!(await flush()) || this.stopped) return false;
    // Every event up to lastSeq that the page did not return is not one this subscription receives.
    if (!page.hasMore && page.next <= lastSeq) await this.write(sub.id, true, (ctx) => this.subscriptions.catchUp(ctx, sub.id, this.owner, lastSeq));
    return page.hasMore;
  }

  /** Attempts and the subscription's new state, in one transaction, while this instance holds it; false when the subscription is gone. */
  private async record(subscriptionId: number, state: SubscriptionState, made: Made[]): Promise<boolean> {
    const attempts = made.map(({ event, attempt, answer, at, nextTry }) => ({ subscriptionId, eventId: event.id, seq: event.seq, attempt, status: answer.status, error: answer.error, attemptedAt: at, nextTry }));
    const recorded = await this.tx.run((ctx) => this.subscriptions.record(ctx, subscriptionId, this.owner, state, attempts));
    if (!recorded) this.poster.dropAgent(subscriptionId);
    return recorded;
  }

  /** Takes the subscription when its lease is free, lapsed or already this instance's. */
  private claim(id: number): Promise<boolean> {
    const now = new Date();
    return this.write(id, false, (ctx) => this.subscriptions.claim(ctx, id, this.owner, new Date(now.getTime() + LEASE_MS), now));
  }

  /** Updates the subscription while this instance holds it; whether a row changed. */
  private update(id: number, state: SubscriptionState): Promise<boolean> {
    return this.write(id, true, (ctx) => this.subscriptions.updateHeld(ctx, id, this.owner, state));
  }

  /**
   * A write of the subscription in a transaction of its own; whether a row
   * changed. One meant for a subscription this instance holds (`held`) that
   * changes none finds it gone or no longer held: its agent is dropped.
   */
  private async write(id: number, held: boolean, change: (ctx: TransactionContext) => Promise<boolean>): Promise<boolean> {
    const changed = await this.tx.run((ctx) => change(ctx));
    if (!changed && held) this.poster.dropAgent(id);
    return changed;
  }

  /** webhook_oldest_undelivered_seconds: the age of the first event after the position of the subscription furthest behind. */
  private async measureLag(): Promise<void> {
    if (!this.metrics) return;
    const behind = await this.subscriptions.furthestBehind();
    const next = behind === null ? null : await this.subscriptions.firstEventAfter(behind);
    this.metrics.webhookLag(next ? Math.max(0, (Date.now() - next.occurred.getTime()) / 1000) : 0);
  }
}
