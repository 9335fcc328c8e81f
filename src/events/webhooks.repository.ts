import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { TransactionContext } from '../database/transaction-context.js';
import { OutboxEvent, WebhookDelivery, WebhookSubscription } from './events.entities.js';

/** A subscription as `webhook:create` writes it: every column but its id, which the insert gives it. */
export type NewSubscription = Omit<WebhookSubscription, 'id'>;

/** An attempt as the relay records it: every column but its id. */
export type NewDelivery = Omit<WebhookDelivery, 'id'>;

/** What the relay changes of a subscription it holds: its position, retry and lease. */
export type SubscriptionState = Partial<Pick<WebhookSubscription, 'afterSeq' | 'attempt' | 'nextTry' | 'leaseOwner' | 'leaseUntil'>>;

/**
 * Every statement on `webhook_subscription` and `webhook_delivery`: the
 * admin CLI's webhook commands (WebhookService) and the relay
 * (WebhookRelay): its look for work, its leases (each write of a held
 * subscription conditional on this instance's lease), its records of
 * attempts, and the lag gauge's reads.
 */
@Injectable()
export class WebhooksRepository {
  constructor(
    @InjectRepository(WebhookSubscription) private readonly subscriptions: Repository<WebhookSubscription>,
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
    @InjectRepository(OutboxEvent) private readonly events: Repository<OutboxEvent>,
  ) {}

  /** Inserts a subscription in the transaction; returns its id. */
  async insert(ctx: TransactionContext, values: NewSubscription): Promise<number> {
    const result = await ctx.manager.insert(WebhookSubscription, values);
    return Number(result.identifiers[0].id);
  }

  /** The subscriptions, of one client when given, by id. */
  list(clientId?: string): Promise<WebhookSubscription[]> {
    return this.subscriptions.find({ where: clientId === undefined ? {} : { clientId }, order: { id: 'ASC' } });
  }

  /** Whether subscription `id` exists. */
  exists(id: number): Promise<boolean> {
    return this.subscriptions.existsBy({ id });
  }

  /** Deletes the subscription and, when there was one, its attempts, in the transaction; whether there was one. */
  async delete(ctx: TransactionContext, id: number): Promise<boolean> {
    const result = await ctx.manager.delete(WebhookSubscription, { id });
    if (!result.affected) return false;
    await ctx.manager.delete(WebhookDelivery, { subscriptionId: id });
    return true;
  }

  /** The newest `limit` attempts of the subscription, newest first. */
  attempts(subscriptionId: number, limit: number): Promise<WebhookDelivery[]> {
    return this.deliveries.find({ where: { subscriptionId }, order: { id: 'DESC' }, take: limit });
  }

  /**
   * Up to `limit` subscriptions behind `lastSeq` whose lease is free or
   * lapsed and whose next try is due (their id and client). Those in work
   * hold a lease, this instance's included, so only free or lapsed leases
   * are looked at (index leaseUntil, nextTry).
   */
  due(now: Date, lastSeq: number, limit: number): Promise<Array<Pick<WebhookSubscription, 'id' | 'clientId'>>> {
    return this.subscriptions
      .createQueryBuilder('s')
      .select(['s.id', 's.clientId'])
      .where('(s.leaseUntil IS NULL OR s.leaseUntil < :now)', { now })
      .andWhere('(s.nextTry IS NULL OR s.nextTry <= :now)', { now })
      .andWhere('s.afterSeq < :lastSeq', { lastSeq })
      .limit(limit)
      .getMany();
  }

  /** The subscription while `owner` holds its lease, or null (gone, or no longer held). */
  held(id: number, owner: string): Promise<WebhookSubscription | null> {
    return this.subscriptions.findOneBy({ id, leaseOwner: owner });
  }

  /** Takes the subscription for `owner` until `leaseUntil` when its lease is free, lapsed or already `owner`'s; whether it did. */
  claim(ctx: TransactionContext, id: number, owner: string, leaseUntil: Date, now: Date): Promise<boolean> {
    return this.update(ctx, id, { leaseOwner: owner, leaseUntil }, owner, false, '(leaseUntil IS NULL OR leaseUntil < :now OR leaseOwner = :owner)', { now });
  }

  /** Sets the next try of a subscription nobody holds and that is due (a client that cannot receive for now); whether it did. */
  setAside(ctx: TransactionContext, id: number, owner: string, nextTry: Date, now: Date): Promise<boolean> {
    return this.update(ctx, id, { nextTry }, owner, false, '(leaseUntil IS NULL OR leaseUntil < :now) AND (nextTry IS NULL OR nextTry <= :now)', { now });
  }

  /** Changes the subscription while `owner` holds it; whether it still does (no row: deleted, or the lease lost). */
  updateHeld(ctx: TransactionContext, id: number, owner: string, state: SubscriptionState): Promise<boolean> {
    return this.update(ctx, id, state, owner, true);
  }

  /** Moves a held subscription's position up to `lastSeq` (never back), its retry cleared; whether `owner` still holds it. */
  catchUp(ctx: TransactionContext, id: number, owner: string, lastSeq: number): Promise<boolean> {
    return this.update(ctx, id, { afterSeq: lastSeq, attempt: 0, nextTry: null }, owner, true, 'afterSeq <= :lastSeq', { lastSeq });
  }

  /**
   * The subscription's new state and its attempts, in the transaction,
   * while `owner` holds it; false (nothing inserted) when it no longer does.
   */
  async record(ctx: TransactionContext, id: number, owner: string, state: SubscriptionState, attempts: NewDelivery[]): Promise<boolean> {
    const result = await ctx.manager.createQueryBuilder().update(WebhookSubscription).set(state).where('id = :id AND leaseOwner = :owner', { id, owner }).execute();
    if (!result.affected) return false;
    await ctx.manager.insert(WebhookDelivery, attempts);
    return true;
  }

  /** Gives back every lease `owner` holds, in the transaction (shutdown). */
  async releaseAll(ctx: TransactionContext, owner: string): Promise<void> {
    await ctx.manager.createQueryBuilder().update(WebhookSubscription).set({ leaseOwner: null, leaseUntil: null }).where('leaseOwner = :owner', { owner }).execute();
  }

  /** The position of the subscription furthest behind, or null without subscriptions. */
  async furthestBehind(): Promise<number | null> {
    const [row] = await this.subscriptions.manager.query('SELECT MIN(afterSeq) AS behind FROM webhook_subscription');
    return row?.behind === null || row?.behind === undefined ? null : Number(row.behind);
  }

  /** The first event after `seq` (when it happened), or null. */
  firstEventAfter(seq: number): Promise<Pick<OutboxEvent, 'eventNo' | 'occurred'> | null> {
    return this.events.createQueryBuilder('e').select(['e.eventNo', 'e.occurred']).where('e.seq > :behind', { behind: seq }).orderBy('e.seq', 'ASC').limit(1).getOne();
  }

  /** An UPDATE of one subscription: while `owner` holds it (`held`), and under `condition` when given; whether a row changed. */
  private async update(ctx: TransactionContext, id: number, set: SubscriptionState, owner: string, held: boolean, condition?: string, params: object = {}): Promise<boolean> {
    const qb = ctx.manager.createQueryBuilder().update(WebhookSubscription).set(set).where('id = :id', { id, owner, ...params });
    if (held) qb.andWhere('leaseOwner = :owner');
    if (condition) qb.andWhere(condition);
    const result = await qb.execute();
    return (result.affected ?? 0) > 0;
  }
}
