import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/config.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { type DomainEvent, EventRecorder } from '../event-contract.js';
import { OutboxRepository } from './outbox.repository.js';
import { EventSequencer } from './sequencer.js';

/**
 * The transactional outbox: a service hands its change's event to `record`
 * with the context of the change's own transaction, so the event commits
 * exactly when the change does and a rollback leaves none. The row has no seq
 * yet; once the transaction has committed, the sequencer gives its events the
 * next seqs, consecutive and in the order they were recorded (a batch: its
 * operations' order). The transaction's unitId and the next position are
 * kept in its context (`ctx.outbox`).
 */
@Injectable()
export class EventOutbox implements EventRecorder {
  /** False with EVENTS_ENABLED=false: nothing is recorded (callers may skip building their events). */
  readonly enabled: boolean;

  constructor(
    private readonly sequencer: EventSequencer,
    private readonly events: OutboxRepository,
    config: AppConfig,
  ) {
    this.enabled = config.eventsEnabled;
  }

  record(ctx: TransactionContext, event: DomainEvent): void {
    if (!this.enabled) return;
    let unit = ctx.outbox;
    if (!unit) {
      unit = ctx.outbox = { unitId: randomUUID(), next: 0 };
      ctx.afterCommit(() => this.sequencer.soon());
    }
    // Its row goes with the commit: nothing in the transaction reads it.
    this.events.insertWithCommit(ctx, {
      id: randomUUID(),
      seq: null,
      unitId: unit.unitId,
      pos: unit.next++,
      type: event.type,
      occurred: new Date(),
      wid: event.wid ?? null,
      toWid: event.toWid ?? null,
      data: event.json,
    });
  }
}
