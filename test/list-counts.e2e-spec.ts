import { tracingChannel } from 'node:diagnostics_channel';
import request from 'supertest';
import { Item } from '../src/catalog/catalog.entities.js';
import { countsTotal } from '../src/database/counters.js';
import { AllocationExpiry } from '../src/inventory/allocation-expiry.js';
import { MAX_PAGE_SIZE, paginate } from '../src/pagination/page.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { allocate, cancelAllocation, cancelExpectation, DAY_MS, expectUnits, fromNow, givenAllocation, givenExpectation, pack, shipExpectation, uniqueReference } from './support/documents.js';
import { batch, expectLedgerConsistent, givenStock, issue, move, receive } from './support/inventory.js';

/**
 * Every list's totalCount comes from counters kept by the writes, not from
 * counting rows: after receives, issues and moves within and across
 * warehouses (lots split, moved whole, archived), items created, discontinued
 * and reactivated, allocations and expectations made (alone and in a Batch),
 * packed, shipped, received against, expired and cancelled, sequentially and
 * concurrently, each total equals the rows its list really walks, for a scope
 * of one warehouse, some and all of them.
 */
describe(`list totals kept by the writes (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let all: TestClient;
  let some: TestClient;
  let one: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    all = await givenClient(t, { warehouses: [1, 2, 3] });
    some = await givenClient(t, { warehouses: [1, 2] });
    one = await givenClient(t, { warehouses: [3] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  /** Walks a list to its end by page number; its totalCount must equal the rows walked, on every page. */
  const walked = async (who: TestClient, path: string): Promise<number> => {
    let rows = 0;
    for (let page = 1; ; page++) {
      const res = await request(t.http).get(`${path}${path.includes('?') ? '&' : '?'}page=${page}&pageSize=250`).set('Authorization', who.bearer);
      expect(res.status).toBe(200);
      rows += res.body.value.length;
      if (!res.body.hasMore) {
        expect({ path, totalCount: res.body.totalCount }).toEqual({ path, totalCount: rows });
        return rows;
      }
    }
  };
  const DOCUMENTS = ['/api/v1/Inventory/Allocations', '/api/v1/Inventory/Expectations'];
  const LISTS = ['/api/v1/Item', '/api/v1/Item/All', '/api/v1/Inventory', '/api/v1/Inventory/StockLevels', '/api/v1/Inventory/Transactions', ...DOCUMENTS];
  const expectExactTotals = async () => {
    for (const who of [all, some, one]) for (const path of LISTS) await walked(who, path);
    for (const wid of [1, 2, 3]) {
      await walked(all, `/api/v1/Inventory/${wid}`);
      await walked(all, `/api/v1/Inventory/StockLevels/${wid}`);
      for (const path of DOCUMENTS) await walked(all, `${path}/${wid}`);
    }
    await expectLedgerConsistent(t);
  };
  const newItem = async (fields: Record<string, unknown> = {}) => (await givenItem(t, all.bearer, fields)).shortID;

  it('counts items created active or discontinued, discontinued, reactivated, and discontinued twice', async () => {
    const a = await newItem();
    const b = await newItem({ discontinued: true });
    await newItem({ active: false });
    await newItem();
    await expectExactTotals();
    const del = (id: string) => request(t.http).delete(`/api/v1/Item/${id}`).set('Authorization', all.bearer).expect(200);
    await Promise.all([del(a), del(a), del(a)]);
    await request(t.http).put('/api/v1/Item').set('Authorization', all.bearer).send({ shortID: b, active: true }).expect(200);
    await request(t.http).put('/api/v1/Item').set('Authorization', all.bearer).send({ shortID: b, description: 'still active' }).expect(200);
    const before = (await request(t.http).get('/api/v1/Item').set('Authorization', all.bearer)).body.totalCount;
    expect(await walked(all, '/api/v1/Item')).toBe(before);
    await expectExactTotals();
  });

  it('counts lots, stock levels and ledger rows through receives, splits, moves across warehouses and issues', async () => {
    const x = await newItem();
    const y = await newItem();
    for (const wid of [1, 2, 3]) await givenStock(t, all.bearer, { itemID: x, units: 10, wid, spot: 'A' });
    await givenStock(t, all.bearer, { itemID: y, units: 5, wid: 3, hold: true });
    await givenStock(t, all.bearer, { itemID: y, units: 5, wid: 3 });
    await expectExactTotals();
    // A lot split by an Issue (the archived part is a new lot), one issued whole (archived in place, still listed).
    expect((await issue(t, all.bearer, { itemID: x, units: 4, wid: 1 })).status).toBe(200);
    expect((await issue(t, all.bearer, { itemID: x, units: 6, wid: 1 })).status).toBe(200);
    // Moves: whole across warehouses, part across, part within one warehouse, held lot from 3 to 1 (item y's first row in 1).
    expect((await move(t, all.bearer, { itemID: x, units: 10, wid: 2, shipToWid: 3 })).status).toBe(200);
    expect((await move(t, all.bearer, { itemID: x, units: 3, wid: 3, shipToWid: 1 })).status).toBe(200);
    expect((await move(t, all.bearer, { itemID: x, units: 2, wid: 3, toSpot: 'B' })).status).toBe(200);
    expect((await move(t, all.bearer, { itemID: y, units: 7, wid: 3, shipToWid: 1 })).status).toBe(200);
    // Refused operations count nothing.
    expect((await issue(t, all.bearer, { itemID: y, units: 1000, wid: 3 })).status).toBe(409);
    expect((await move(t, all.bearer, { itemID: y, units: 1000, wid: 3, shipToWid: 2 })).status).toBe(409);
    await expectExactTotals();
  });

  it('counts allocations and expectations in every state: made alone and in a Batch, packed, shipped, received against, expired, cancelled; refused ones not at all', async () => {
    const itemID = await newItem();
    for (const wid of [1, 2, 3]) await givenStock(t, all.bearer, { itemID, units: 20, wid });
    const total = async (path: string, who = all) => (await request(t.http).get(path).set('Authorization', who.bearer).expect(200)).body.totalCount as number;
    const before = { allocations: await total(DOCUMENTS[0]), expectations: await total(DOCUMENTS[1]), inOne: await total(DOCUMENTS[0], one) };
    const a = await givenAllocation(t, all.bearer, { itemID, units: 2, wid: 1 });
    const due = await givenAllocation(t, all.bearer, { itemID, units: 1, wid: 2, expiresAt: fromNow(1000) });
    const cancelled = await givenAllocation(t, all.bearer, { itemID, units: 1, wid: 3 });
    const e = await givenExpectation(t, all.bearer, { itemID, units: 5, wid: 1 });
    const shipped = await givenExpectation(t, all.bearer, { itemID, units: 3, wid: 3 });
    const gone = await givenExpectation(t, all.bearer, { itemID, units: 1, wid: 2 });
    // A Batch's allocate and expect count as the endpoints do, in one transaction with its other operations.
    const batched = await batch(t, all.bearer, [
      { op: 'allocate', itemID, wid: 2, units: 1, reference: uniqueReference() },
      { op: 'expect', itemID, wid: 3, units: 2, reference: uniqueReference('PO') },
      { op: 'allocate', itemID, wid: 3, units: 1, reference: uniqueReference() },
    ]);
    expect(batched.status).toBe(200);
    await expectExactTotals();
    // Changes of state change no count: the lists show every state.
    await pack(t, all.bearer, a.id, { units: 1 }).expect(200);
    expect((await issue(t, all.bearer, { itemID, units: 1, wid: 1, allocationId: a.id })).status).toBe(200);
    await cancelAllocation(t, all.bearer, cancelled.id).expect(200);
    // Expired here, or by the instance's own look if it came first.
    await t.app.get(AllocationExpiry).expireDue(new Date(Date.now() + DAY_MS));
    await shipExpectation(t, all.bearer, shipped.id).expect(200);
    expect((await receive(t, all.bearer, { itemID, units: 5, wid: 1, expectationId: e.id })).status).toBe(201);
    await cancelExpectation(t, all.bearer, gone.id).expect(200);
    // Refused: nothing made, nothing counted (too many units; a Batch whose last operation fails rolls its allocate and expect back).
    expect((await allocate(t, all.bearer, { itemID, units: 1000, wid: 1, reference: uniqueReference() })).status).toBe(409);
    const refused = await batch(t, all.bearer, [
      { op: 'allocate', itemID, wid: 1, units: 1, reference: uniqueReference() },
      { op: 'expect', itemID, wid: 1, units: 1, reference: uniqueReference('PO') },
      { op: 'cancelAllocation', allocationId: cancelled.id },
    ]);
    expect(refused.status).toBe(409);
    expect((await expectUnits(t, all.bearer, { itemID, units: 1, wid: 1 })).status).toBe(400);
    expect({ allocations: await total(DOCUMENTS[0]), expectations: await total(DOCUMENTS[1]), inOne: await total(DOCUMENTS[0], one) }).toEqual({
      allocations: before.allocations + 5,
      expectations: before.expectations + 4,
      inOne: before.inOne + 2,
    });
    expect(await total(`${DOCUMENTS[0]}/2`)).toBeGreaterThanOrEqual(2);
    // The expired one is listed (cancelled), as every state is.
    expect((await request(t.http).get(`/api/v1/Inventory/Allocation/${due.id}`).set('Authorization', all.bearer).expect(200)).body.state).toBe('cancelled');
    await expectExactTotals();
    // A filter is counted on its index, exactly.
    for (const path of DOCUMENTS) {
      for (const filter of [`itemID=${itemID}`, 'state=open', 'state=cancelled', 'state=done', `modifiedSince=${new Date(Date.now() - 3600_000).toISOString()}`]) {
        for (const who of [all, some, one]) await walked(who, `${path}?${filter}`);
      }
    }
  });

  it('stays exact under concurrent receives, issues, moves, allocates and expects over the same items and warehouses, from two instances', async () => {
    const other = await startTestApp({ database: t.database });
    try {
      const items = [await newItem(), await newItem(), await newItem()];
      for (const itemID of items) for (const wid of [1, 2, 3]) await givenStock(t, all.bearer, { itemID, units: 50, wid });
      const ops: Array<Promise<{ status: number }>> = [];
      for (let i = 0; i < 40; i++) {
        const on = i % 2 === 0 ? t : other;
        const itemID = items[i % 3];
        const wid = 1 + (i % 3);
        const to = 1 + ((i + 1) % 3);
        ops.push(receive(on, all.bearer, { itemID, units: 1 + (i % 4), wid }));
        ops.push(issue(on, all.bearer, { itemID, units: 0.5 + (i % 3), wid }));
        ops.push(move(on, all.bearer, { itemID, units: 1.5, wid, shipToWid: to }));
        ops.push(move(on, all.bearer, { itemID, units: 2, wid, toSpot: `S${i % 5}` }));
        if (i % 4 === 1) ops.push(allocate(on, all.bearer, { itemID, units: 0.5, wid, reference: uniqueReference() }));
        if (i % 4 === 3) ops.push(expectUnits(on, all.bearer, { itemID, units: 2, wid: to, reference: uniqueReference('PO') }));
        if (i % 8 === 0) ops.push(request(on.http).post('/api/v1/Item').set('Authorization', all.bearer).send({ shortID: `CONC-${i}` }));
        // Discontinued while (or before) it is created: a 404 or a 200, counted once either way.
        if (i % 8 === 4) ops.push(request(on.http).delete(`/api/v1/Item/CONC-${i - 4}`).set('Authorization', all.bearer));
      }
      const statuses = (await Promise.all(ops)).map((r) => r.status);
      // Every write succeeded or was refused cleanly (insufficient stock, contention): never a 5xx.
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(statuses.filter((s) => s < 300).length).toBeGreaterThan(statuses.length / 2);
    } finally {
      await other.close();
    }
    await expectExactTotals();
  });

  it('reads a page\'s total from the counters, one statement per query, and answers a page past the end empty, with the total', async () => {
    const item = await givenItem(t, all.bearer);
    await givenStock(t, all.bearer, { itemID: item.shortID, units: 4 });
    for (let i = 0; i < 2; i++) {
      await givenAllocation(t, all.bearer, { itemID: item.shortID, units: 1 });
      await givenExpectation(t, all.bearer, { itemID: item.shortID, units: 1 });
    }
    const sent: string[] = [];
    const channel = tracingChannel<object, { query: string }>('mysql2:query');
    const listen = { start: (context: { query: string }) => void sent.push(context.query) };
    if (testDatabaseKind() === 'mysql') channel.subscribe(listen as never);
    const pages: Record<string, request.Response> = {};
    try {
      for (const path of ['/api/v1/Inventory', '/api/v1/Item', '/api/v1/Inventory/Transactions', ...DOCUMENTS]) {
        pages[path] = await request(t.http).get(`${path}?pageSize=2`).set('Authorization', all.bearer).expect(200);
        const total = pages[path].body.totalCount;
        const past = await request(t.http).get(`${path}?pageSize=2&page=${Math.ceil(total / 2) + 1}`).set('Authorization', all.bearer).expect(200);
        expect({ path, value: past.body.value, totalCount: past.body.totalCount, hasMore: past.body.hasMore }).toEqual({ path, value: [], totalCount: total, hasMore: false });
      }
    } finally {
      if (testDatabaseKind() === 'mysql') channel.unsubscribe(listen as never);
    }
    for (const page of Object.values(pages)) expect(page.body.value.length).toBe(2);
    if (testDatabaseKind() !== 'mysql') return;
    const counters = sent.filter((q) => q.includes('FROM list_count'));
    // Two pages of each list, each total read once, in a query of its own.
    expect(counters.length).toBe(10);
    for (const q of counters) expect(q).toMatch(/^SELECT scope, SUM\(n\) AS n FROM list_count WHERE [^;]*$/);
  });

  it("reads a page's total on the manager it is given, in that manager's transaction, where the page's keys are read", async () => {
    const runner = t.dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      const m = runner.manager;
      // A counter of a list of its own, not committed: only reads in this transaction see it.
      await m.query("INSERT INTO list_count (list, scope, slot, n) VALUES ('probe', 'all', 0, 7)");
      const spec = { maxPageSize: MAX_PAGE_SIZE.standard, sortable: {}, defaultSort: { column: 'item.partNo', direction: 'ASC' as const }, tiebreak: 'item.partNo', modifiedColumn: 'item.modified' };
      const page = await paginate(m, m.createQueryBuilder(Item, 'item').where('item.partNo < 0'), {}, spec, { total: countsTotal('probe') });
      expect({ totalCount: page.totalCount, value: page.value }).toEqual({ totalCount: 7, value: [] });
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('counts a move between two warehouses of the scope once in the ledger list', async () => {
    const itemID = await newItem();
    await givenStock(t, all.bearer, { itemID, units: 4, wid: 1 });
    await move(t, all.bearer, { itemID, units: 1, wid: 1, shipToWid: 2 });
    await move(t, all.bearer, { itemID, units: 1, wid: 1, shipToWid: 3 });
    const rows = async (who: TestClient) =>
      (await request(t.http).get(`/api/v1/Inventory/Transactions?itemID=${itemID}`).set('Authorization', who.bearer)).body.totalCount;
    expect([await rows(all), await rows(some), await rows(one)]).toEqual([3, 3, 1]);
    await expectExactTotals();
  });
});
