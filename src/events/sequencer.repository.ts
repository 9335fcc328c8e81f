import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { execute, rows } from '../database/statements.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { EventSequence, OutboxEvent } from './events.entities.js';

/** An event committed without a seq, as a turn of the sequencer reads it. */
export interface Unsequenced {
  eventNo: number;
  unitId: string;
  pos: number;
}

/** An event as pruning reads it: its seq and when it happened. */
export type Sequenced = Pick<OutboxEvent, 'eventNo' | 'seq' | 'occurred'>;

/**
 * The statements of the sequencer (sequencer.ts) on `event_sequence` and
 * `event`: a turn's lock, reads and numbering (hand-written, statements.ts:
 * a turn runs about once per twenty writes under load), the sweeper's look
 * and pruning; and the last seq handed out, which the webhooks read.
 */
@Injectable()
export class SequencerRepository {
  constructor(
    @InjectRepository(OutboxEvent) private readonly events: Repository<OutboxEvent>,
    @InjectRepository(EventSequence) private readonly sequence: Repository<EventSequence>,
    private readonly tx: TransactionRunner,
  ) {}

  /** Locks the one `event_sequence` row (on SQLite the writer's turn holds it) and reads the last seq handed out. */
  async lockLastSeq(ctx: TransactionContext): Promise<number> {
    const [sequence] = await rows(ctx.manager, `SELECT lastSeq FROM event_sequence WHERE id = 1${this.tx.isMysql ? ' FOR UPDATE' : ''}`, []);
    if (!sequence) throw new Error('event_sequence has no row 1');
    return Number(sequence.lastSeq);
  }

  /** Up to `limit` committed events without a seq, by eventNo. */
  async unsequenced(ctx: TransactionContext, limit: number): Promise<Unsequenced[]> {
    return unsequenced(await rows(ctx.manager, 'SELECT eventNo, unitId, pos FROM event WHERE seq IS NULL ORDER BY eventNo ASC LIMIT ?', [limit]));
  }

  /** Every event without a seq of these transactions. */
  async unsequencedOf(ctx: TransactionContext, unitIds: string[]): Promise<Unsequenced[]> {
    return unsequenced(await rows(ctx.manager, `SELECT eventNo, unitId, pos FROM event WHERE seq IS NULL AND unitId IN (${unitIds.map(() => '?').join(', ')})`, unitIds));
  }

  /** Gives these events the seqs `first`, `first` + 1, … in their order, as one UPDATE. */
  async number(ctx: TransactionContext, events: readonly Unsequenced[], first: number): Promise<void> {
    let seq = first;
    const cases = events.flatMap((e) => [e.eventNo, seq++]);
    await ctx.manager.query(
      `UPDATE event SET seq = CASE eventNo ${events.map(() => 'WHEN ? THEN ?').join(' ')} END WHERE eventNo IN (${events.map(() => '?').join(', ')})`,
      [...cases, ...events.map((e) => e.eventNo)],
    );
  }

  /** Stores the last seq handed out. */
  async setLastSeq(ctx: TransactionContext, lastSeq: number): Promise<void> {
    await execute(ctx.manager, 'UPDATE event_sequence SET lastSeq = ? WHERE id = 1', [lastSeq]);
  }

  /** The last seq handed out: every seq up to it is visible (less what was pruned). In the transaction when given one. */
  async lastSeq(ctx?: TransactionContext): Promise<number> {
    const { lastSeq } = await (ctx ? ctx.manager.findOneByOrFail(EventSequence, { id: 1 }) : this.sequence.findOneByOrFail({ id: 1 }));
    return lastSeq;
  }

  /** Whether any committed event waits for its seq (the sweeper's cheap look). */
  async anyUnsequenced(): Promise<boolean> {
    return Boolean(await this.events.createQueryBuilder('e').select('e.eventNo').where('e.seq IS NULL').limit(1).getRawOne());
  }

  /** The first `limit` events with a seq, oldest seq first. */
  oldest(limit: number): Promise<Sequenced[]> {
    return this.events.createQueryBuilder('e').select(['e.eventNo', 'e.seq', 'e.occurred']).where('e.seq IS NOT NULL').orderBy('e.seq', 'ASC').limit(limit).getMany();
  }

  /** Deletes the events of the seqs from `first` to `last`, in the transaction. */
  async deleteSeqs(ctx: TransactionContext, first: number, last: number): Promise<void> {
    await ctx.manager.createQueryBuilder().delete().from(OutboxEvent).where('seq >= :first AND seq <= :last', { first, last }).execute();
  }
}

/** Rows of `SELECT eventNo, unitId, pos` (mysql2 answers BIGINT as text). */
function unsequenced(found: Array<Record<string, unknown>>): Unsequenced[] {
  return found.map((r) => ({ eventNo: Number(r.eventNo), unitId: String(r.unitId), pos: Number(r.pos) }));
}
