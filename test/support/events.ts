import request from 'supertest';
import { EventSequencer } from '../../src/events/sequencer.js';
import type { TestApp } from '../app.factory.js';

export interface FedEvent {
  id: string;
  seq: number;
  type: string;
  occurred: string;
  data: Record<string, unknown> & { levels?: Array<Record<string, number>> };
}

/** Waits until the sequencer of `t` has given seqs to what committed so far (a turn is asked for at each commit, before the answer is sent; it may wait for EVENTS_TURN_GAP_MS). */
export async function sequenced(t: TestApp): Promise<void> {
  await t.app.get(EventSequencer).settled();
}

/** GET /Events with the query given, once the events committed so far have their seqs. */
export async function feed(t: TestApp, bearer: string, query: Record<string, string | number> = {}): Promise<request.Response> {
  await sequenced(t);
  return request(t.http).get('/api/v1/Events').query(query).set('Authorization', bearer);
}

/** Every event after `after` the caller sees (following next), optionally of some types. */
export async function eventsAfter(t: TestApp, bearer: string, after: number, types?: string): Promise<FedEvent[]> {
  // An event is published right after its change commits, by a turn the commit starts and does not wait for:
  // the answer of the write may reach the test first. The tests check what is published, not how soon.
  await t.app.get(EventSequencer).settled();
  const events: FedEvent[] = [];
  for (let next = after; ; ) {
    const res = await feed(t, bearer, { after: next, limit: 1000, ...(types ? { types } : {}) });
    if (res.status !== 200) throw new Error(`events failed: ${res.status} ${res.text}`);
    events.push(...res.body.value);
    next = res.body.next;
    if (!res.body.hasMore) return events;
  }
}

/** The seq of the last event visible to everyone (0 when none), read straight from the database. */
export async function lastSeq(t: TestApp): Promise<number> {
  await sequenced(t);
  const [row] = await t.dataSource.query('SELECT MAX(seq) AS s FROM event');
  return Number(row.s ?? 0);
}

/** How many event rows exist, sequenced or not. */
export async function eventRows(t: TestApp): Promise<number> {
  const [row] = await t.dataSource.query('SELECT COUNT(*) AS n FROM event');
  return Number(row.n);
}
