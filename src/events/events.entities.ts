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

export const EVENTS_ENTITIES = [OutboxEvent, EventSequence];
