import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessService } from '../auth/access.service.js';
import type { Caller } from '../auth/caller.js';
import { SecurityId } from '../auth/security-id.js';
import { AppConfig } from '../config/config.js';
import { TransactionRunner } from '../database/transactions.js';
import { AppLogger } from '../http/logger.js';
import { Metrics } from '../metrics/metrics.js';
import { EventSequence, OutboxEvent, WebhookDelivery, WebhookSubscription } from './events.entities.js';
import type { EventResponseDto } from './events.responses.js';
import { EventsService } from './events.service.js';
import { EventSequencer } from './sequencer.js';
import { type CheckedAddress, checkedAddress, parseWebhookUrl, pinnedLookup } from './webhook-target.js';

/** How long a claim on a subscription lasts; renewed before a POST (which takes at most ATTEMPT_MS) once less than RENEW_BEFORE_MS of it is left. */
export const LEASE_MS = 30_000;
const RENEW_BEFORE_MS = 15_000;
/** Deliveries recorded together: at most this many, or after this long, in one transaction (a crash repeats at most these). */
const RECORD_EVERY = 100;
const RECORD_EVERY_MS = 500;
/** A delivery is a 2xx within this time. */
export const ATTEMPT_MS = 10_000;
/** The most of a receiver's answer that is read. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** Polling: at once again after a turn that did something, else once a second (a sequencer turn in this instance wakes it earlier). */
const IDLE_POLL_MS = 1000;
/** How often a turn measures webhook_oldest_undelivered_seconds. */
const LAG_EVERY_MS = 1000;
/** How long an idle kept-alive connection to a receiver stays open. */
const KEEP_ALIVE_MS = 4000;
/** Subscriptions one turn works on, side by side, and events per subscription per turn. */
const SUBSCRIPTIONS_PER_TURN = 20;
const EVENTS_PER_TURN = 100;

interface Attempt {
  status: number | null;
  error: string | null;
}

/** An attempt made, to be recorded: the event, its number for that event, the answer, when it was made, and its retry (null: none). */
interface Made {
  event: EventResponseDto;
  attempt: number;
  answer: Attempt;
  at: Date;
  nextTry: Date | null;
}

/** `webhook-signature` (Standard Webhooks): HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed by the secret's bytes. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * Delivers each subscription's events (EXTENSIONS "Events"), in every
 * instance of the service. A subscription is worked on by one instance at a
 * time: the instance claims it by a conditional UPDATE of its lease, renews
 * the lease before every POST, and a killed instance's lease lapses after
 * LEASE_MS. Events go out in seq order; an event that fails is tried again
 * after the next pause of WEBHOOK_RETRY_SECONDS (with ±20 % jitter), the
 * events after it waiting, and once the pauses are used up it is recorded as
 * failed and the subscription moves on. Which events a subscription receives
 * is the feed's own rule (EventsService.page) for its client's account as it
 * is now: a disabled client, or one without SecurityID 11, receives nothing.
 * The position moves only after an attempt is recorded, so a crash repeats
 * at most the attempts not yet recorded (at least once): deliveries in a row
 * are recorded together, up to RECORD_EVERY or RECORD_EVERY_MS, in one
 * transaction (a failed attempt at once), so that one subscription keeps up
 * with hundreds of events a second.
 */
@Injectable()
export class WebhookRelay implements OnModuleDestroy {
  private readonly owner = randomUUID();
  private lagMeasured = 0;
  private stopped = false;
  private started = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly requests = new Set<http.ClientRequest>();
  /**
   * A kept-alive connection pool per subscription, bound to the address its
   * URL was checked to: a POST after the first skips the TCP (and TLS)
   * handshake. A new check that gives another address gets a new pool, so a
   * connection never goes to an address that was not checked.
   */
  private readonly agents = new Map<number, { address: string; agent: http.Agent }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly tx: TransactionRunner,
    private readonly config: AppConfig,
    private readonly access: AccessService,
    private readonly events: EventsService,
    private readonly sequencer: EventSequencer,
    @Optional() private readonly metrics?: Metrics,
    @Optional() private readonly logger?: AppLogger,
  ) {}

  /** Starts delivering (the service does, once it is up). */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.sequencer.onPublished(() => this.wake?.());
    this.loop = this.run();
  }

  /** Stops: the POSTs in flight are cut off (their events are tried again), the leases given back. */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    for (const request of this.requests) request.destroy(new Error('the service is shutting down'));
    await this.loop;
    for (const { agent } of this.agents.values()) agent.destroy();
    this.agents.clear();
    if (this.started) {
      await this.tx
        .run((m) => m.createQueryBuilder().update(WebhookSubscription).set({ leaseOwner: null, leaseUntil: null }).where('leaseOwner = :owner', { owner: this.owner }).execute())
        .catch(() => undefined);
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let busy = false;
      try {
        // The lag gauge at most once a second: the relay looks again at once while it is busy.
        const measure = Date.now() - this.lagMeasured >= LAG_EVERY_MS;
        if (measure) this.lagMeasured = Date.now();
        busy = await this.turn(measure);
      } catch (error) {
        this.logger?.log.warn({ err: error }, 'webhooks: a relay turn failed; it runs again shortly');
      }
      if (this.stopped) break;
      if (busy) {
        // More may be waiting: look again at once, yielding to the requests in between.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, IDLE_POLL_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** One look for work: the subscriptions behind the feed, free to claim and due; whether any attempt was made. `measure`: also set the lag gauge. */
  async turn(measure = true): Promise<boolean> {
    const now = new Date();
    const { lastSeq } = await this.dataSource.getRepository(EventSequence).findOneByOrFail({ id: 1 });
    const due = await this.dataSource
      .getRepository(WebhookSubscription)
      .createQueryBuilder('s')
      // Leases are given back after each turn, so only others' unexpired leases are skipped here (index leaseUntil, nextTry).
      .where('(s.leaseUntil IS NULL OR s.leaseUntil < :now)', { now })
      .andWhere('(s.nextTry IS NULL OR s.nextTry <= :now)', { now })
      .andWhere('s.afterSeq < :lastSeq', { lastSeq })
      .limit(SUBSCRIPTIONS_PER_TURN)
      .getMany();
    const done = await Promise.all(due.map((s) => this.claimAndWork(s, lastSeq)));
    if (measure) await this.measureLag();
    return done.some(Boolean);
  }

  private async claimAndWork(sub: WebhookSubscription, lastSeq: number): Promise<boolean> {
    // A disabled client (or one without SecurityID 11) receives nothing: not even a claim is written for it.
    const caller = await this.access.callerOf(sub.clientId);
    if (!caller || !caller.can(SecurityId.ItemMasterList)) return false;
    const claimedAt = Date.now();
    if (!(await this.claim(sub.id))) return false;
    try {
      return await this.work(sub, caller, lastSeq, claimedAt + LEASE_MS);
    } finally {
      await this.update(sub.id, { leaseOwner: null, leaseUntil: null }).catch(() => undefined);
    }
  }

  /** Delivers the subscription's next events; stops at a failure (to be retried), at shutdown, or when the subscription is gone. */
  private async work(sub: WebhookSubscription, caller: Caller, lastSeq: number, leaseUntil: number): Promise<boolean> {
    const types = sub.types === null ? undefined : (JSON.parse(sub.types) as string[]).join(',');
    const page = await this.events.page(caller, { after: sub.afterSeq, limit: EVENTS_PER_TURN, types }, 'strong');
    let attempt = sub.attempt;
    let worked = false;
    // Deliveries not yet recorded (recorded together, with the position after the last of them).
    const delivered: Made[] = [];
    const flush = (): Promise<boolean> =>
      delivered.length ? this.record(sub.id, { afterSeq: delivered[delivered.length - 1].event.seq, attempt: 0, nextTry: null }, delivered.splice(0)) : Promise.resolve(true);
    for (const event of page.value) {
      if (this.stopped) break;
      if (leaseUntil - Date.now() < RENEW_BEFORE_MS) {
        // Renews the claim; no row: deleted meanwhile, stop at once.
        const until = Date.now() + LEASE_MS;
        if (!(await this.update(sub.id, { leaseUntil: new Date(until) }))) return worked;
        leaseUntil = until;
      }
      const at = new Date();
      const answer = await this.post(sub, event);
      if (this.stopped && answer.status === null) break; // cut off by the shutdown: not an attempt
      attempt++;
      worked = true;
      if (answer.status !== null && answer.status >= 200 && answer.status < 300) {
        delivered.push({ event, attempt, answer, at, nextTry: null });
        this.metrics?.webhookDelivery('delivered');
        attempt = 0;
        if ((delivered.length >= RECORD_EVERY || Date.now() - delivered[0].at.getTime() >= RECORD_EVERY_MS) && !(await flush())) return worked;
        continue;
      }
      if (!(await flush())) return worked;
      const pauses = this.config.webhookRetrySeconds;
      const gaveUp = attempt > pauses.length;
      const nextTry = gaveUp ? null : new Date(Date.now() + pauses[attempt - 1] * 1000 * (0.8 + 0.4 * Math.random()));
      const error = gaveUp ? `${answer.error ?? `HTTP ${answer.status}`}; no retries left: failed`.slice(0, 200) : answer.error;
      // Given up: the position moves past the event; else the retry is set.
      const state = gaveUp ? { afterSeq: event.seq, attempt: 0, nextTry: null } : { attempt, nextTry };
      const moved = await this.record(sub.id, state, [{ event, attempt, answer: { ...answer, error }, at, nextTry }]);
      this.metrics?.webhookDelivery(gaveUp ? 'failed' : 'retry');
      if (!moved || nextTry) return worked;
      attempt = 0;
    }
    if (!(await flush()) || this.stopped) return worked;
    // Every event up to lastSeq that the page did not return is not one this subscription receives.
    if (!page.hasMore && page.next <= lastSeq) await this.update(sub.id, { afterSeq: lastSeq, attempt: 0, nextTry: null }, 'afterSeq <= :lastSeq', { lastSeq });
    return worked;
  }

  /** Attempts and the subscription's new state, in one transaction, while this instance holds it; false when the subscription is gone. */
  private record(subscriptionId: number, state: Partial<WebhookSubscription>, made: Made[]): Promise<boolean> {
    return this.tx.run(async (m) => {
      const result = await m
        .createQueryBuilder()
        .update(WebhookSubscription)
        .set(state)
        .where('id = :id AND leaseOwner = :owner', { id: subscriptionId, owner: this.owner })
        .execute();
      if (!result.affected) {
        this.dropAgent(subscriptionId);
        return false;
      }
      await m.insert(
        WebhookDelivery,
        made.map(({ event, attempt, answer, at, nextTry }) => ({ subscriptionId, eventId: event.id, seq: event.seq, attempt, status: answer.status, error: answer.error, attemptedAt: at, nextTry })),
      );
      return true;
    });
  }

  /** Takes the subscription when its lease is free, lapsed or already this instance's. */
  private async claim(id: number): Promise<boolean> {
    const now = new Date();
    return this.update(id, { leaseOwner: this.owner, leaseUntil: new Date(now.getTime() + LEASE_MS) }, '(leaseUntil IS NULL OR leaseUntil < :now OR leaseOwner = :owner)', { now }, false);
  }

  /** Updates the subscription while this instance holds it (or, to claim it, under `condition`); whether a row changed. */
  private async update(id: number, set: Partial<WebhookSubscription>, condition?: string, params: object = {}, held = true): Promise<boolean> {
    const result = await this.tx.run((m) => {
      const qb = m.createQueryBuilder().update(WebhookSubscription).set(set).where('id = :id', { id, owner: this.owner, ...params });
      if (held) qb.andWhere('leaseOwner = :owner');
      if (condition) qb.andWhere(condition);
      return qb.execute();
    });
    const changed = (result.affected ?? 0) > 0;
    if (!changed && held) this.dropAgent(id);
    return changed;
  }

  /** Closes the kept-alive pool of a subscription this instance no longer holds (deleted, or its lease lost): the map holds only those in work. */
  private dropAgent(subscriptionId: number): void {
    this.agents.get(subscriptionId)?.agent.destroy();
    this.agents.delete(subscriptionId);
  }

  /**
   * One POST: the URL checked again (it may resolve elsewhere now, or the
   * rule may have changed) and the connection made to the address checked;
   * no redirect followed; a 2xx within ATTEMPT_MS is a delivery; at most
   * MAX_ANSWER_BYTES of the answer are read.
   */
  private async post(sub: WebhookSubscription, event: EventResponseDto): Promise<Attempt> {
    let url: URL;
    let address;
    try {
      url = parseWebhookUrl(sub.url);
      address = await checkedAddress(url, this.config.webhookAllowPrivate);
    } catch (error) {
      return { status: null, error: `refused: ${(error as Error).message}`.slice(0, 200) };
    }
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'user-agent': 'inventory-service-webhooks',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(sub.secret, event.id, timestamp, body),
    };
    const first = await this.exchange(sub.id, url, address, headers, body);
    // A kept-alive connection the receiver closed just as it was reused: once more, on a new one (nothing was answered).
    return first.staleSocket ? this.exchange(sub.id, url, address, headers, body) : first;
  }

  /** One request of a POST (see `post`); `staleSocket` when a reused connection failed before any answer. */
  private exchange(subscriptionId: number, url: URL, address: CheckedAddress, headers: http.OutgoingHttpHeaders, body: string): Promise<Attempt & { staleSocket?: boolean }> {
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (attempt: Attempt & { staleSocket?: boolean }) => {
        if (settled) return;
        settled = true;
        resolve(attempt);
      };
      const request = client.request(url, { method: 'POST', headers, lookup: pinnedLookup(address), agent: this.agentFor(subscriptionId, url, address) }, (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        response.on('error', () => undefined);
        response.on('close', () => this.requests.delete(request));
        settle({ status: response.statusCode ?? null, error: response.statusCode && response.statusCode < 300 && response.statusCode >= 200 ? null : `HTTP ${response.statusCode}` });
      });
      // Bounds the whole exchange, the answer's body included.
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${ATTEMPT_MS / 1000} s`)), ATTEMPT_MS);
      request.on('close', () => clearTimeout(timer));
      this.requests.add(request);
      request.on('error', (error) => {
        this.requests.delete(request);
        const reset = (error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE';
        settle({ status: null, error: error.message.slice(0, 200), staleSocket: request.reusedSocket && reset && !this.stopped });
      });
      request.end(body);
    });
  }

  /** The subscription's kept-alive pool for the address just checked (a new one when the address changed). */
  private agentFor(subscriptionId: number, url: URL, address: { address: string }): http.Agent {
    const known = this.agents.get(subscriptionId);
    if (known?.address === address.address && (known.agent instanceof https.Agent) === (url.protocol === 'https:')) return known.agent;
    known?.agent.destroy();
    // An idle connection is closed after KEEP_ALIVE_MS, before the usual 5 s of a receiver's own keep-alive.
    const options = { keepAlive: true, maxSockets: 1, timeout: KEEP_ALIVE_MS };
    const agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    this.agents.set(subscriptionId, { address: address.address, agent });
    return agent;
  }

  /** webhook_oldest_undelivered_seconds: the age of the first event after the position of the subscription furthest behind. */
  private async measureLag(): Promise<void> {
    if (!this.metrics) return;
    const [row] = await this.dataSource.query('SELECT MIN(afterSeq) AS behind FROM webhook_subscription');
    const behind = row?.behind === null || row?.behind === undefined ? null : Number(row.behind);
    const next =
      behind === null
        ? null
        : await this.dataSource.getRepository(OutboxEvent).createQueryBuilder('e').select(['e.eventNo', 'e.occurred']).where('e.seq > :behind', { behind }).orderBy('e.seq', 'ASC').limit(1).getOne();
    this.metrics.webhookLag(next ? Math.max(0, (Date.now() - next.occurred.getTime()) / 1000) : 0);
  }
}
