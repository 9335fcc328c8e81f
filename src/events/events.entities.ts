import { Column, Entity, PrimaryColumn, type ValueTransformer } from 'typeorm';

/** BIGINT columns as numbers (mysql2 answers them as strings): seqs stay far below 2^53. */
const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

/**
 * One event of the outbox (EXTENSIONS "Events"), written in the transaction
 * of the change it describes with `seq` null; the sequencer gives it its
 * `seq`, its place in the feed, once that transaction has committed.
 */
@Entity('event')
export class OutboxEvent {
  /** Insertion order (internal): the order in which the sequencer takes rows that committed before its turn. */
  @PrimaryColumn({ type: 'bigint', generated: 'increment', transformer: bigintNumber })
  eventNo: number;

  /** The event's public id, a random UUID: stable, unique, never reused. */
  @Column({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'bigint', nullable: true, transformer: bigintNumber })
  seq: number | null;

  /** The transaction that wrote it (a random UUID per transaction), and its place among that transaction's events. */
  @Column({ type: 'varchar', length: 36 })
  unitId: string;

  @Column({ type: 'int' })
  pos: number;

  @Column({ type: 'varchar', length: 32 })
  type: string;

  @Column({ type: 'datetime' })
  occurred: Date;

  /** The warehouses a stock event touched (a Move's destination in `toWid`); both null for an item event, which every caller sees. */
  @Column({ type: 'int', nullable: true })
  wid: number | null;

  @Column({ type: 'int', nullable: true })
  toWid: number | null;

  /** The event's `data`, as JSON text (MEDIUMTEXT on MySQL: an Issue over thousands of lots lists them all). */
  @Column({ type: 'text' })
  data: string;
}

/** The one row (id 1) holding the last seq handed out; locked by the sequencer while it hands out more. */
@Entity('event_sequence')
export class EventSequence {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ type: 'bigint', transformer: bigintNumber })
  lastSeq: number;
}



/** A webhook subscription (EXTENSIONS "Events"): a client's URL, the types it wants, its secret and where its relay stands. */
@Entity('webhook_subscription')
export class WebhookSubscription {
  @PrimaryColumn({ type: 'int', generated: 'increment' })
  id: number;

  @Column({ type: 'varchar', length: 64 })
  clientId: string;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** The `--types` as given, as a JSON array; null for every type. */
  @Column({ type: 'varchar', length: 1000, nullable: true })
  types: string | null;

  /** `whsec_<base64>`: the HMAC key is the base64-decoded part. */
  @Column({ type: 'varchar', length: 100 })
  secret: string;

  /** The last seq when it was created: it receives the events after it. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  createdSeq: number;

  /** Every event up to this seq is done for it (delivered, failed for good, or not one it receives). */
  @Column({ type: 'bigint', transformer: bigintNumber })
  afterSeq: number;

  /** Attempts made so far at the event after `afterSeq`, and when the next one is due (null: at once). */
  @Column({ type: 'int', default: 0 })
  attempt: number;

  @Column({ type: 'datetime', nullable: true })
  nextTry: Date | null;

  /** The instance delivering it, until when (a lease: a killed instance's lapses). */
  @Column({ type: 'varchar', length: 36, nullable: true })
  leaseOwner: string | null;

  @Column({ type: 'datetime', nullable: true })
  leaseUntil: Date | null;

  @Column({ type: 'datetime' })
  created: Date;
}

/** One attempt at delivering an event to a subscription. */
@Entity('webhook_delivery')
export class WebhookDelivery {
  @PrimaryColumn({ type: 'bigint', generated: 'increment', transformer: bigintNumber })
  id: number;

  @Column({ type: 'int' })
  subscriptionId: number;

  @Column({ type: 'varchar', length: 36 })
  eventId: string;

  @Column({ type: 'bigint', transformer: bigintNumber })
  seq: number;

  @Column({ type: 'int' })
  attempt: number;

  /** The HTTP status that came back; null when none did. */
  @Column({ type: 'int', nullable: true })
  status: number | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  error: string | null;

  @Column({ type: 'datetime' })
  attemptedAt: Date;

  /** When the event is tried again; null when this attempt was the last (delivered or failed for good). */
  @Column({ type: 'datetime', nullable: true })
  nextTry: Date | null;
}
export const EVENTS_ENTITIES = [OutboxEvent, EventSequence, WebhookSubscription, WebhookDelivery];
