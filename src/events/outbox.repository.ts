import { Injectable } from '@nestjs/common';
import { insertStatement } from '../database/statements.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { OutboxEvent } from './events.entities.js';

/** An event row as the outbox writes it: no eventNo yet (the insert gives it), seq NULL until the sequencer's turn. */
export type NewOutboxEvent = Omit<OutboxEvent, 'eventNo'>;

/** The one statement of the outbox: an event row, inserted with the commit of the change that recorded it. */
@Injectable()
export class OutboxRepository {
  /**
   * The row, held back for the commit (`ctx.later`: nothing in the
   * transaction reads it), as a hand-written INSERT (statements.ts): the
   * query builder's per-call work is a measurable part of a write.
   */
  insertWithCommit(ctx: TransactionContext, event: NewOutboxEvent): void {
    ctx.later(insertStatement(ctx.manager, OutboxEvent, [event]));
  }
}
