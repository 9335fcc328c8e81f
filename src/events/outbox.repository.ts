import { Injectable } from '@nestjs/common';
import type { TransactionContext } from '../database/transaction-context.js';
import { OutboxEvent } from './events.entities.js';

/** An event row as the outbox writes it: no eventNo yet (the insert gives it), seq NULL until the sequencer's turn. */
export type NewOutboxEvent = Omit<OutboxEvent, 'eventNo'>;

/** The one statement of the outbox: an event row, inserted with the commit of the change that recorded it. */
@Injectable()
export class OutboxRepository {
  /**
   * The row, kept for the commit (`ctx.insertWithCommit`: nothing in the
   * transaction reads it), written there with the transaction's other events
   * as one hand-written INSERT (statements.ts): the query builder's per-call
   * work is a measurable part of a write.
   */
  insertWithCommit(ctx: TransactionContext, event: NewOutboxEvent): void {
    ctx.insertWithCommit(OutboxEvent, [event]);
  }
}
