import request from 'supertest';
import { EventSequencer } from '../src/events/sequencer.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import type { FedEvent } from './support/events.js';
import { batch, expectLedgerConsistent, issue, receive } from './support/inventory.js';

/**
 * The feed's order is a commit order (EXTENSIONS "Events"): three instances on
 * one database, writers committing concurrently on both (single Receives,
 * batches of three, Issues that fail and roll back), and a reader following
 * `next` on each in turn all the while. The reader never gets a seq at or below one
 * it has passed, and in the end has seen every seq from 1 once; every ledger
 * row has exactly one event, and no event lacks its ledger row.
 */
describe(`the order of the event feed under concurrent writers (${testDatabaseKind()})`, () => {
  let one: TestApp;
  let instances: TestApp[];
  let admin: TestClient;
  beforeAll(async () => {
    one = await startTestApp();
    instances = [one, await startTestApp({ database: one.database }), await startTestApp({ database: one.database })];
    admin = await givenClient(one, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(one);
    for (const t of instances.slice(1)) await t.close();
    await one.close();
  });

  it('never shows a seq at or below one already passed, and every committed ledger row once', async () => {
    const items: string[] = [];
    for (let i = 0; i < 4; i++) items.push((await givenItem(one, admin.bearer)).shortID);
    const WRITERS = 8;
    const ROUNDS = 12;
    let writing = true;

    /** Ledger rows committed; a write may also meet too much contention (409) and roll back, which must leave no event. */
    let committed = 0;
    const written = (res: request.Response, rows: number, status: number) => {
      if (res.status === status) committed += rows;
      else expect([res.status, res.body.message]).toEqual([409, 'The request met concurrent changes and could not be completed; retry it.']);
    };
    const writer = async (w: number) => {
      const t = instances[w % instances.length];
      for (let r = 0; r < ROUNDS; r++) {
        const itemID = items[(w + r) % items.length];
        const wid = 1 + (r % 2);
        if (r % 4 === 3) {
          const ops = [0, 1, 2].map((k) => ({ op: 'receive', itemID: items[(w + r + k) % items.length], wid, units: 1, reasonCode: 1 }));
          written(await batch(t, admin.bearer, ops), 3, 200);
        } else if (r % 5 === 4) {
          expect((await issue(t, admin.bearer, { itemID, wid, units: 1_000_000 })).status).toBe(409);
        } else {
          written(await receive(t, admin.bearer, { itemID, wid, units: 1 + r }), 1, 201);
        }
      }
    };

    const seen: FedEvent[] = [];
    const problems: string[] = [];
    let next = 0;
    const readPage = async (t: TestApp) => {
      const res = await request(t.http).get('/api/v1/Events').query({ after: next, limit: 7 }).set('Authorization', admin.bearer);
      if (res.status !== 200) throw new Error(`events failed: ${res.status} ${res.text}`);
      for (const e of res.body.value as FedEvent[]) {
        if (e.seq <= next) problems.push(`seq ${e.seq} after having passed ${next}`);
        next = e.seq;
        seen.push(e);
      }
      if (res.body.next !== next) problems.push(`next ${res.body.next}, last seq ${next}`);
      return res.body.hasMore as boolean;
    };
    let pagesWhileWriting = 0;
    const reader = async () => {
      for (let i = 0; writing; i++, pagesWhileWriting++) {
        await readPage(instances[i % instances.length]);
        await new Promise((r) => setImmediate(r));
      }
    };

    const reading = reader();
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    writing = false;
    await reading;
    const seenWhileWriting = seen.length;
    for (const t of instances) await t.app.get(EventSequencer).settled();
    while (await readPage(one));

    expect(problems).toEqual([]);
    // The reader did follow the feed while the writers committed, and saw events then.
    expect(pagesWhileWriting).toBeGreaterThan(10);
    expect(seenWhileWriting).toBeGreaterThan(0);
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    const stock = seen.filter((e) => e.type === 'stock.received');
    expect(seen.length - stock.length).toBe(items.length);
    const ledger: Array<{ recNo: number }> = await one.dataSource.query("SELECT recNo FROM ledger_entry WHERE operation = 'receive' ORDER BY recNo");
    expect(stock.map((e) => e.data.recNo as number).sort((a, b) => a - b)).toEqual(ledger.map((r) => Number(r.recNo)));
    // Per writer: rounds 3, 7, 11 are batches of 3; rounds 4 and 9 fail; the 7 others receive once.
    expect(ledger.length).toBe(committed);
    expect(committed).toBeGreaterThan(WRITERS * (3 * 3 + 7) * 0.75);
  });
});
