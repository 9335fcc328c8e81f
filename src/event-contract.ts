import type { TransactionContext } from './database/transaction-context.js';

/*
 * The events contract: what a feature publishes and how. A feature records
 * the event of its change through EventRecorder, which it injects; the
 * events module implements it (EventOutbox, events/outbox.ts) and provides
 * it. Features know only this file, and the events module knows no feature.
 */

/** EXTENSIONS "Events": every kind of committed change an event describes. */
export const EVENT_TYPES = [
  'stock.received',
  'stock.issued',
  'stock.moved',
  'stock.held',
  'stock.released',
  'stock.counted',
  'stock.allocated',
  'stock.packed',
  'allocation.cancelled',
  'allocation.expired',
  'stock.expected',
  'expectation.shipped',
  'expectation.cancelled',
  'item.created',
  'item.updated',
  'item.discontinued',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** A change as its service describes it: the type, the body's `data` as JSON text, and for a stock change the warehouses it touched. */
export interface DomainEvent {
  type: EventType;
  /** JSON.stringify's output (a stock change writes its own from the answer and the rest: inventory/stock-events.ts). */
  json: string;
  /** The warehouse of a stock change, and a Move's destination when it is another; none for an item change. */
  wid?: number;
  toWid?: number;
}

/**
 * Records a change's event inside the change's own transaction (its context,
 * `ctx`), so that the event commits exactly when the change does and a
 * rollback leaves none.
 */
export abstract class EventRecorder {
  /** False with EVENTS_ENABLED=false: nothing is recorded (callers may skip building their events). */
  abstract readonly enabled: boolean;
  abstract record(ctx: TransactionContext, event: DomainEvent): void;
}
