import { jest } from '@jest/globals';
import request from 'supertest';
import { EventSequencer } from '../src/events/sequencer.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { eventsAfter, type FedEvent, lastSeq } from './support/events.js';
import { expectLedgerConsistent, receive } from './support/inventory.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The sequencer's turns (docs/architecture.md "Events and their order"): at
 * most one every EVENTS_TURN_GAP_MS while commits come, every event still
 * numbered once and in order; a reader of the feed right after its write,
 * `settled` and shutdown do not wait for the gap.
 */
/** A service whose sequencer starts turns at least `gap` ms apart, and an admin client of warehouse 1, for the tests of the describe that calls it. */
function withGap(gap: number): { t: TestApp; admin: TestClient } {
  const service = {} as { t: TestApp; admin: TestClient };
  beforeAll(async () => {
    service.t = await startTestApp({ config: { eventsTurnGapMs: gap } });
    service.admin = await givenClient(service.t, { warehouses: [1] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(service.t);
    await service.t.close();
  });
  return service;
}

describe(`Events: the sequencer's turns (${testDatabaseKind()})`, () => {
  const unsequenced = async (t: TestApp) => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM event WHERE seq IS NULL'))[0].n);

  describe('under load', () => {
    const GAP = 100;
    const service = withGap(GAP);

    it('starts turns at least the gap apart while Receives commit 16 at a time, and numbers each of their events once, in order', async () => {
      const { t, admin } = service;
      const sequencer = t.app.get(EventSequencer);
      const { shortID: itemID } = await givenItem(t, admin.bearer);
      const from = await lastSeq(t);
      await sequencer.settled();
      const claim = sequencer.claim.bind(sequencer);
      const starts: number[] = [];
      jest.spyOn(sequencer, 'claim').mockImplementation(() => {
        starts.push(performance.now());
        return claim();
      });
      const recNos: number[] = [];
      const began = performance.now();
      // At least eight waves, and at least six gaps' time: several turns are asked for, each while commits come.
      for (let wave = 0; wave < 8 || performance.now() - began < 6 * GAP; wave++) {
        const answers = await Promise.all(Array.from({ length: 16 }, () => receive(t, admin.bearer, { itemID, units: 1 })));
        for (const res of answers) {
          expect(res.status).toBe(201);
          recNos.push(res.body.recNo);
        }
      }
      const during = [...starts];
      jest.restoreAllMocks();
      await sequencer.settled();
      // Back to back, a turn would start as soon as the one before ended: a few ms apart.
      expect(during.length).toBeGreaterThanOrEqual(3);
      const gaps = during.slice(1).map((at, i) => Math.round(at - during[i]));
      expect(gaps.filter((g) => g < GAP - 5)).toEqual([]);
      const events = await eventsAfter(t, admin.bearer, from, 'stock.received');
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => from + 1 + i));
      expect(events.map((e) => Number(e.data.recNo)).sort((a, b) => a - b)).toEqual([...recNos].sort((a, b) => a - b));
      expect(await unsequenced(t)).toBe(0);
    });
  });

  describe('with a gap of a second', () => {
    const GAP = 1000;
    const service = withGap(GAP);

    it("shows a reader its own write's event at once, starts a waiting turn for settled and at shutdown", async () => {
      const { t, admin } = service;
      const sequencer = t.app.get(EventSequencer);
      const { shortID: itemID } = await givenItem(t, admin.bearer);
      await sequencer.settled();
      const from = await lastSeq(t);
      await sleep(GAP + 50);
      // The first commit's turn starts at once; the second's waits for the gap, unless a reader asks.
      const first = await receive(t, admin.bearer, { itemID, units: 1 }).expect(201);
      const second = await receive(t, admin.bearer, { itemID, units: 1 }).expect(201);
      const asked = performance.now();
      const res = await request(t.http).get('/api/v1/Events').query({ after: from, types: 'stock.received' }).set('Authorization', admin.bearer).expect(200);
      // Without the reader starting the turn it would wait 200 ms (CATCH_UP_MS) and answer without the second event.
      expect(res.body.value.map((e: FedEvent) => e.data.recNo)).toEqual([first.body.recNo, second.body.recNo]);
      expect(performance.now() - asked).toBeLessThan(GAP);

      // A commit right after that turn waits for the gap; settled does not.
      await receive(t, admin.bearer, { itemID, units: 1 }).expect(201);
      expect(await unsequenced(t)).toBe(1);
      const settling = performance.now();
      await sequencer.settled();
      expect(performance.now() - settling).toBeLessThan(GAP);
      expect(await unsequenced(t)).toBe(0);

      // And one more: the instance stopping gives it its seq first.
      await receive(t, admin.bearer, { itemID, units: 1 }).expect(201);
      expect(await unsequenced(t)).toBe(1);
      await sequencer.onModuleDestroy();
      expect(await unsequenced(t)).toBe(0);
    });
  });
});
