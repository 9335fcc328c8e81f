import { jest } from '@jest/globals';
import { AllocationExpiry } from '../src/inventory/allocation-expiry.js';
import { AllocationsService } from '../src/inventory/allocations.service.js';
import { createTestDatabase, startTestApp, type TestApp, type TestDatabase, testDatabaseKind } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { DAY_MS, type Doc, documentOf, fromNow, givenAllocation, pack, sleep } from './support/documents.js';
import { eventsAfter, lastSeq, sequenced } from './support/events.js';
import { batch, expectLedgerConsistent, givenStock, stockOf } from './support/inventory.js';

/**
 * The expiry of allocations (EXTENSIONS: an open allocation past its
 * expiresAt is cancelled within 60 s, its packed units never) with more than
 * one instance on one database, across a restart, and for an allocation
 * partly packed when it expires.
 */
describe(`the expiry of allocations (${testDatabaseKind()})`, () => {
  /** One database, which no instance owns: instances stop and start on it. */
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp | null;
  let admin: TestClient;
  beforeAll(async () => {
    database = await createTestDatabase();
    a = await startTestApp({ database, config: { allocationExpirySeconds: 1 } });
    b = await startTestApp({ database, config: { allocationExpirySeconds: 1 } });
    admin = await givenClient(a, { warehouses: [1] });
  });
  afterAll(async () => {
    await b?.close();
    await expectLedgerConsistent(a);
    await a.close();
    await database.drop();
  });

  const stockedItem = async (units: number) => {
    const { shortID } = await givenItem(a, admin.bearer);
    await givenStock(a, admin.bearer, { itemID: shortID, units });
    return shortID;
  };
  const expiredEvents = async (from: number) => (await eventsAfter(a, admin.bearer, from)).filter((e) => e.type === 'allocation.expired');

  it('two instances looking at once expire each due allocation once: one allocation.expired event each, and the units back', async () => {
    const itemID = await stockedItem(40);
    const from = await lastSeq(a);
    // Due tomorrow: the periodic looks leave them alone, the two looks below run for a moment two days ahead.
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push((await givenAllocation(a, admin.bearer, { itemID, units: 2, expiresAt: fromNow(DAY_MS) })).id);
    const ahead = new Date(Date.now() + 2 * DAY_MS);
    const [byA, byB] = await Promise.all([a.app.get(AllocationExpiry).expireDue(ahead), b!.app.get(AllocationExpiry).expireDue(ahead)]);
    expect(byA + byB).toBe(20);
    // Each instance gives seqs to the events it committed: b's turn too, before the feed is read.
    await sequenced(b!);
    const expired = await expiredEvents(from);
    expect(expired.map((e) => (e.data.allocation as Doc).id).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(await documentOf(a, admin.bearer, 'Allocation', id)).toMatchObject({ state: 'cancelled' });
    expect(await stockOf(a, admin.bearer, itemID, 1)).toMatchObject({ inStock: 40, committed: 0, available: 40 });
    // The service's own change: no client made it.
    expect(expired[0].data).toMatchObject({ status: 'expired', clientId: null, reasonCode: null, reference: null, itemID });
  });

  it('a look goes on past the allocations it could not expire: 100 that fail (more than one look reads) hold up none of the 130 due after them', async () => {
    const itemID = await stockedItem(500);
    // 230 due tomorrow, one Batch (its allocations in id order); the two looks below run two days ahead.
    const operations = Array.from({ length: 230 }, (_, i) => ({ op: 'allocate', itemID, wid: 1, units: 1, reference: `LOOK-${i}`, expiresAt: fromNow(DAY_MS) }));
    const made = await batch(a, admin.bearer, operations).expect(200);
    const ids = (made.body.results as Array<{ allocation: Doc }>).map((r) => Number(r.allocation.id));
    const failing = new Set(ids.slice(0, 100));
    const service = a.app.get(AllocationsService);
    const expire = service.expire.bind(service);
    // The first 100 in the look's order (expiresAt, then id) fail, as an allocation whose transaction keeps failing would.
    const spy = jest.spyOn(service, 'expire').mockImplementation((due, now) => (failing.has(due.id) ? Promise.reject(new Error('planted failure')) : expire(due, now)));
    const ahead = new Date(Date.now() + 2 * DAY_MS);
    try {
      expect(await a.app.get(AllocationExpiry).expireDue(ahead)).toBe(130);
    } finally {
      spy.mockRestore();
    }
    const states = async (which: number[]) => new Set(await Promise.all(which.map(async (id) => (await documentOf(a, admin.bearer, 'Allocation', id)).state)));
    expect(await states(ids.slice(0, 100))).toEqual(new Set(['open']));
    expect(await states(ids.slice(100))).toEqual(new Set(['cancelled']));
    expect(await stockOf(a, admin.bearer, itemID, 1)).toMatchObject({ inStock: 500, committed: 100, available: 400 });
    // The next look, without the failures, expires the rest.
    expect(await a.app.get(AllocationExpiry).expireDue(ahead)).toBe(100);
    expect(await stockOf(a, admin.bearer, itemID, 1)).toMatchObject({ inStock: 500, committed: 0, available: 500 });
  });

  it('releases the unpacked units of an allocation partly packed when it expires; it stays open with its packed units alone', async () => {
    const itemID = await stockedItem(10);
    const from = await lastSeq(a);
    const partly = await givenAllocation(a, admin.bearer, { itemID, units: 5, expiresAt: fromNow(1500) });
    await pack(a, admin.bearer, partly.id, { units: 2 }).expect(200);
    expect(await stockOf(a, admin.bearer, itemID, 1)).toMatchObject({ committed: 3, packed: 2, available: 5 });
    const deadline = Date.now() + 15_000;
    let now = await documentOf(a, admin.bearer, 'Allocation', partly.id);
    while (now.units === 5 && Date.now() < deadline) {
      await sleep(250);
      now = await documentOf(a, admin.bearer, 'Allocation', partly.id);
    }
    expect(now).toMatchObject({ units: 2, packed: 2, shipped: 0, state: 'open' });
    expect(await stockOf(a, admin.bearer, itemID, 1)).toMatchObject({ inStock: 10, committed: 0, packed: 2, available: 8 });
    // A few more looks: nothing more expires, and the packed units stay.
    await sleep(2500);
    const expired = await expiredEvents(from);
    expect(expired.map((e) => [(e.data.allocation as Doc).id, (e.data.allocation as Doc).state, (e.data.allocation as Doc).units])).toEqual([[partly.id, 'open', 2]]);
    expect(await documentOf(a, admin.bearer, 'Allocation', partly.id)).toMatchObject({ units: 2, packed: 2, state: 'open' });
  });

  it('expires, at its first look after a start, what fell due while no instance was looking', async () => {
    const itemID = await stockedItem(10);
    // Both instances stop; c looks only every 30 s, so its next look after its start comes too late for this allocation.
    await b!.close();
    b = null;
    await a.close();
    const c = await startTestApp({ database, config: { allocationExpirySeconds: 30 } });
    const due = await givenAllocation(c, admin.bearer, { itemID, units: 3, expiresAt: fromNow(1000) });
    await sleep(2000);
    expect(await documentOf(c, admin.bearer, 'Allocation', due.id)).toMatchObject({ state: 'open' });
    await c.close();
    // A new start: its first look, at once, finds it.
    a = await startTestApp({ database, config: { allocationExpirySeconds: 30 } });
    const deadline = Date.now() + 5000;
    let state = 'open';
    while (state === 'open' && Date.now() < deadline) {
      await sleep(100);
      state = (await documentOf(a, admin.bearer, 'Allocation', due.id)).state;
    }
    expect(state).toBe('cancelled');
    expect(await stockOf(a, admin.bearer, itemID, 1)).toMatchObject({ committed: 0, available: 10 });
  });
});
