import { jest } from '@jest/globals';
import { EventSequencer, TURN_GAP_MS } from '../src/events/sequencer.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { eventsAfter, lastSeq } from './support/events.js';
import { expectLedgerConsistent, receive } from './support/inventory.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The sequencer's turns under load (docs/architecture.md "Events and their
 * order"): at most one every TURN_GAP_MS, each numbering every commit of its
 * gap, every event still numbered once and in order; a reader waiting for the
 * feed does not wait for the gap.
 */
describe(`Events: the sequencer's turns (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  let sequencer: EventSequencer;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1] });
    sequencer = t.app.get(EventSequencer);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  it('runs at most one turn every TURN_GAP_MS while Receives commit 16 at a time, and numbers each of their events once, in order', async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    const from = await lastSeq(t);
    await sequencer.settled();
    const claims = jest.spyOn(sequencer, 'claim');
    const started = Date.now();
    const recNos: number[] = [];
    for (let wave = 0; wave < 8; wave++) {
      const answers = await Promise.all(Array.from({ length: 16 }, () => receive(t, admin.bearer, { itemID, units: 1 })));
      for (const res of answers) {
        expect(res.status).toBe(201);
        recNos.push(res.body.recNo);
      }
    }
    const elapsed = Date.now() - started;
    await sequencer.settled();
    // Back to back, a turn would follow every few commits: 128 commits make dozens in well under a second.
    expect(claims.mock.calls.length).toBeGreaterThan(0);
    expect(claims.mock.calls.length).toBeLessThanOrEqual(Math.floor(elapsed / TURN_GAP_MS) + 2);
    const events = await eventsAfter(t, admin.bearer, from, 'stock.received');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => from + 1 + i));
    expect(events.map((e) => e.data.recNo).sort((a, b) => Number(a) - Number(b))).toEqual([...recNos].sort((a, b) => a - b));
  });

  it('starts a turn waiting for its gap at once for a reader of the feed (caughtUp), and for settled', async () => {
    await sequencer.settled();
    await sleep(TURN_GAP_MS + 10);
    const claims = jest.spyOn(sequencer, 'claim');
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await sequencer.settled();
    claims.mockClear();
    await sleep(TURN_GAP_MS + 10);

    // A commit after the gap: its turn starts at once. One during that turn: the next turn waits for the gap.
    expect((await receive(t, admin.bearer, { itemID, units: 1 })).status).toBe(201);
    expect(claims).toHaveBeenCalledTimes(1);
    await claims.mock.results[0].value;
    expect((await receive(t, admin.bearer, { itemID, units: 1 })).status).toBe(201);
    await sleep(0);
    // Its turn waits for the gap (or has run already, if the first turn and that Receive took longer than the gap here):
    // a reader starts a waiting one at once, and a turn's claim starts synchronously.
    const reading = sequencer.caughtUp(10_000);
    expect(claims).toHaveBeenCalledTimes(2);
    await reading;

    // Another commit, its turn waiting for the gap (or run at once): settled starts it at once too.
    expect((await receive(t, admin.bearer, { itemID, units: 1 })).status).toBe(201);
    await sleep(0);
    const settling = sequencer.settled();
    expect(claims).toHaveBeenCalledTimes(3);
    await settling;
    const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM event WHERE seq IS NULL');
    expect(Number(n)).toBe(0);
  });
});
