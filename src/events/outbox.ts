import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/config.js';
import { insertStatement } from '../database/statements.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { OutboxEvent } from './events.entities.js';
import { EventSequencer } from './sequencer.js';

/** EXTENSIONS "Events": every kind of committed change an event describes. */
export const EVENT_TYPES = [
  'stock.received',
  'stock.issued',
  'stock.moved',
  'stock.held',
  'stock.released',
  'stock.counted',
  'item.created',
  'item.updated',
  'item.discontinued',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** A change as its service describes it: the type, the body's `data` as JSON text, and for a stock change the warehouses it touched. */
export interface DomainEvent {
  type: EventType;
  /** JSON.stringify's output (a stock change writes its own from the answer and the rest: stock-events.ts). */
  json: string;
  /** The warehouse of a stock change, and a Move's destination when it is another; none for an item change. */
  wid?: number;
  toWid?: number;
}

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
export class EventOutbox {
  /** False with EVENTS_ENABLED=false: nothing is recorded (callers may skip building their events). */
  readonly enabled: boolean;

  constructor(
    private readonly sequencer: EventSequencer,
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
    // A hand-written INSERT (statements.ts): the query builder's per-call work is a measurable part of a write.
    // Its row goes with the commit (`ctx.later`): nothing in the transaction reads it.
    ctx.later(insertStatement(ctx.manager, OutboxEvent, [{
      id: randomUUID(),
      seq: null,
      unitId: unit.unitId,
      pos: unit.next++,
      type: event.type,
      occurred: new Date(),
      wid: event.wid ?? null,
      toWid: event.toWid ?? null,
      data: event.json,
    }]));
  }
}
