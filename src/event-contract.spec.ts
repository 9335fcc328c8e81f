import { EVENT_TYPES } from './event-contract.js';
import { EVENT_TYPES as OUTBOX_EVENT_TYPES } from './events/outbox.js';

describe('the events contract', () => {
  // events/outbox.ts still declares the event types for its own DomainEvent: the same list, until it takes this one.
  it("lists the outbox's event types, in its order", () => {
    expect([...OUTBOX_EVENT_TYPES]).toEqual([...EVENT_TYPES]);
  });
});
