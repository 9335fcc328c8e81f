import request from 'supertest';
import { SecurityId } from '../src/auth/security-id.js';
import { AccessService } from '../src/auth/access.service.js';
import { EventsService } from '../src/events/events.service.js';
import { TEXT_PIECE } from '../src/http/json-array.js';
import { EventSequencer } from '../src/events/sequencer.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { eventRows, eventsAfter, feed, type FedEvent, lastSeq } from './support/events.js';
import { batch, count, expectLedgerConsistent, givenStock, hold, issue, move, receive, release } from './support/inventory.js';

/** GET /Events and the outbox behind it (EXTENSIONS "Events"): one event per committed change, none for what rolled back. */
describe(`Events (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1, 2, 3] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  /** A row of an event's `levels` of an item with no allocation or expectation: the documents' figures 0. */
  const level = (wid: number, inStock: number, onHold = 0) => ({ wid, inStock, onHold, available: inStock - onHold, committed: 0, packed: 0, onOrder: 0, aSN: 0 });
  /** What a stock event's data adds to the operation's answer. */
  const stockData = (answer: object, shortID: string, partNo: number, levels: object[], reasonCode: number | null, reference: string | null = null) => ({
    ...answer,
    itemID: shortID,
    partNo,
    reasonCode,
    reference,
    clientId: admin.clientId,
    levels,
  });
  const itemOf = async (partNo: number) => (await request(t.http).get(`/api/v1/Item/${partNo}`).set('Authorization', admin.bearer)).body;

  it('records every committed change of an item and of its stock, each with its data, in commit order', async () => {
    const from = await lastSeq(t);
    const item = await givenItem(t, admin.bearer, { description: 'Evented' });
    const updated = await request(t.http).put('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: item.shortID, putUp: 'Box' }).expect(200);
    const afterUpdate = await itemOf(item.partNo);
    const received = await receive(t, admin.bearer, { itemID: item.shortID, units: 10, spot: 'A', reference: 'PO-1' }).expect(201);
    const issued = await issue(t, admin.bearer, { itemID: item.shortID, units: 2 }).expect(200);
    const moved = await move(t, admin.bearer, { itemID: item.shortID, units: 3, shipToWid: 2 }).expect(200);
    const held = await hold(t, admin.bearer, { itemID: item.shortID, units: 1 }).expect(200);
    const released = await release(t, admin.bearer, { itemID: item.shortID }).expect(200);
    const counted = await count(t, admin.bearer, { itemID: item.shortID, counted: 4 }).expect(200);
    await request(t.http).delete(`/api/v1/Item/${item.shortID}`).set('Authorization', admin.bearer).expect(200);
    const discontinued = await itemOf(item.partNo);

    const events = await eventsAfter(t, admin.bearer, from);
    expect(events.map((e) => e.type)).toEqual([
      'item.created',
      'item.updated',
      'stock.received',
      'stock.issued',
      'stock.moved',
      'stock.held',
      'stock.released',
      'stock.counted',
      'item.discontinued',
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => from + 1 + i));
    for (const e of events) {
      expect(Object.keys(e)).toEqual(['id', 'seq', 'type', 'occurred', 'data']);
      expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(e.occurred).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const [created, update, rec, iss, mov, hld, rel, cnt, disc] = events.map((e) => e.data);
    expect(created).toEqual(item);
    expect(update).toEqual(afterUpdate);
    expect(updated.body.putUp).toBe('Box');
    expect(rec).toEqual(stockData(received.body, item.shortID, item.partNo, [level(1, 10)], 1, 'PO-1'));
    expect(Object.keys(rec)).toEqual(['status', 'recNo', 'lot', 'itemID', 'partNo', 'reasonCode', 'reference', 'clientId', 'levels']);
    expect(iss).toEqual(stockData(issued.body, item.shortID, item.partNo, [level(1, 8)], 2));
    expect(mov).toEqual(stockData(moved.body, item.shortID, item.partNo, [level(1, 5), level(2, 3)], null));
    expect(hld).toEqual(stockData(held.body, item.shortID, item.partNo, [level(1, 5, 1)], 3));
    expect(rel).toEqual(stockData(released.body, item.shortID, item.partNo, [level(1, 5)], 4));
    expect(cnt).toEqual(stockData(counted.body, item.shortID, item.partNo, [level(1, 4)], 5));
    expect(disc).toEqual(discontinued);
    expect(disc.discontinued).toBe(true);
  });

  it("keeps an event's text as it was sent: quotes, backslashes and text beyond ASCII", async () => {
    // The text SQL escapes: an event's JSON goes into its INSERT as a parameter of the driver's.
    const tricky = `O'Brien "10\\" pipe" \\' '' \\\\ \\n \\u0000 %_ ; -- é ü 😀 \u2028`;
    const from = await lastSeq(t);
    const item = await givenItem(t, admin.bearer, { description: tricky });
    const received = await receive(t, admin.bearer, { itemID: item.shortID, units: 1, reference: tricky }).expect(201);
    const [created, rec] = (await eventsAfter(t, admin.bearer, from)).map((e) => e.data);
    expect(item.description).toBe(tricky);
    expect(created).toEqual(item);
    expect(rec).toEqual(stockData(received.body, item.shortID, item.partNo, [level(1, 1)], 1, tricky));
    expect((rec as { lot: { description: string } }).lot.description).toBe(tricky);
  });

  it('records nothing for a change that did not happen: a repeated DELETE, a PUT that changes nothing', async () => {
    const item = await givenItem(t, admin.bearer);
    await request(t.http).delete(`/api/v1/Item/${item.shortID}`).set('Authorization', admin.bearer).expect(200);
    const from = await lastSeq(t);
    await request(t.http).delete(`/api/v1/Item/${item.shortID}`).set('Authorization', admin.bearer).expect(200);
    await request(t.http).put('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: item.shortID, description: item.description }).expect(200);
    expect(await eventsAfter(t, admin.bearer, from)).toEqual([]);
  });

  it('gives a batch one event per operation, consecutive seqs in the operations order, each with the levels after it', async () => {
    const item = await givenItem(t, admin.bearer);
    const from = await lastSeq(t);
    const res = await batch(t, admin.bearer, [
      { op: 'receive', itemID: item.shortID, wid: 1, units: 5, reasonCode: 1 },
      { op: 'receive', itemID: item.shortID, wid: 1, units: 7, reasonCode: 1 },
      { op: 'move', itemID: item.shortID, wid: 1, units: 6, shipToWid: 3 },
      { op: 'issue', itemID: item.shortID, wid: 3, units: 1, reasonCode: 2, reference: 'SO-9' },
    ]).expect(200);
    const events = await eventsAfter(t, admin.bearer, from);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [from + 1, 'stock.received'],
      [from + 2, 'stock.received'],
      [from + 3, 'stock.moved'],
      [from + 4, 'stock.issued'],
    ]);
    expect(events.map((e) => e.data.levels)).toEqual([[level(1, 5)], [level(1, 12)], [level(1, 6), level(3, 6)], [level(3, 5)]]);
    expect(events[3].data).toEqual(stockData(res.body.results[3], item.shortID, item.partNo, [level(3, 5)], 2, 'SO-9'));
  });

  it('records nothing for a change that rolled back: an Issue of too much, a failing batch, a Receive of a discontinued item, a duplicate item', async () => {
    const item = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: item.shortID, units: 3 });
    const from = await lastSeq(t);
    const rows = await eventRows(t);
    await issue(t, admin.bearer, { itemID: item.shortID, units: 4 }).expect(409);
    await batch(t, admin.bearer, [
      { op: 'receive', itemID: item.shortID, wid: 1, units: 5, reasonCode: 1 },
      { op: 'issue', itemID: item.shortID, wid: 1, units: 100, reasonCode: 2 },
    ]).expect(409);
    await request(t.http).post('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: item.shortID.toLowerCase() }).expect(409);
    const gone = await givenItem(t, admin.bearer);
    await request(t.http).delete(`/api/v1/Item/${gone.shortID}`).set('Authorization', admin.bearer).expect(200);
    await receive(t, admin.bearer, { itemID: gone.shortID, units: 1 }).expect(409);
    expect((await eventsAfter(t, admin.bearer, from)).map((e) => e.type)).toEqual(['item.created', 'item.discontinued']);
    expect(await eventRows(t)).toBe(rows + 2);
  });

  it('records nothing for an idempotent replay', async () => {
    const item = await givenItem(t, admin.bearer);
    const key = `events-replay-${Date.now()}`;
    const first = await receive(t, admin.bearer, { itemID: item.shortID, units: 2 }, key).expect(201);
    const from = await lastSeq(t);
    const replay = await receive(t, admin.bearer, { itemID: item.shortID, units: 2 }, key).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const create = () => request(t.http).post('/api/v1/Item').set('Authorization', admin.bearer).set('Idempotency-Key', `${key}-item`).send({ shortID: `${item.shortID}-K` });
    const created = await create().expect(201);
    expect((await create().expect(201)).headers['idempotent-replayed']).toBe('true');
    const events = await eventsAfter(t, admin.bearer, from);
    expect(events.map((e) => [e.type, e.data.shortID])).toEqual([['item.created', created.body.shortID]]);
  });

  it("shows a caller the stock events of its own warehouses (a Move when either end is one), and every item event", async () => {
    const item = await givenItem(t, admin.bearer);
    const from = await lastSeq(t);
    await givenStock(t, admin.bearer, { itemID: item.shortID, wid: 1, units: 5 });
    await givenStock(t, admin.bearer, { itemID: item.shortID, wid: 2, units: 5 });
    await move(t, admin.bearer, { itemID: item.shortID, wid: 1, units: 2, shipToWid: 3 }).expect(200);
    await move(t, admin.bearer, { itemID: item.shortID, wid: 3, units: 1, shipToWid: 2 }).expect(200);
    await request(t.http).put('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: item.shortID, description: 'seen by all' }).expect(200);
    const second = await givenClient(t, { warehouses: [2], permissions: [SecurityId.ItemMasterList] });
    const seen = await eventsAfter(t, second.bearer, from);
    expect(seen.map((e) => [e.type, e.data.levels?.map((l) => l.wid) ?? null])).toEqual([
      ['stock.received', [2]],
      ['stock.moved', [2, 3]],
      ['item.updated', null],
    ]);
    const all = await eventsAfter(t, admin.bearer, from);
    expect(all).toHaveLength(5);
    // The second client's events are the admin's, as they are (levels not trimmed), at the same seqs.
    expect(seen).toEqual(all.filter((e) => seen.some((s) => s.seq === e.seq)));
  });

  it('filters by types, with stock.* and item.* for a kind', async () => {
    const item = await givenItem(t, admin.bearer);
    const from = await lastSeq(t);
    await givenStock(t, admin.bearer, { itemID: item.shortID, units: 5 });
    await issue(t, admin.bearer, { itemID: item.shortID, units: 1 }).expect(200);
    await request(t.http).delete(`/api/v1/Item/${item.shortID}`).set('Authorization', admin.bearer).expect(200);
    const types = async (filter: string) => (await eventsAfter(t, admin.bearer, from, filter)).map((e) => e.type);
    expect(await types('stock.issued')).toEqual(['stock.issued']);
    expect(await types('stock.issued,item.discontinued')).toEqual(['stock.issued', 'item.discontinued']);
    expect(await types('stock.*')).toEqual(['stock.received', 'stock.issued']);
    expect(await types('item.*,stock.received')).toEqual(['stock.received', 'item.discontinued']);
    expect(await types('item.created')).toEqual([]);
  });

  it('pages with after and limit: next is the last seq sent (or after), hasMore says whether more follow', async () => {
    const item = await givenItem(t, admin.bearer);
    const from = await lastSeq(t);
    for (let i = 0; i < 5; i++) await givenStock(t, admin.bearer, { itemID: item.shortID, units: 1 });
    const page = async (after: number, limit: number) => (await feed(t, admin.bearer, { after, limit })).body;
    const first = await page(from, 2);
    expect(Object.keys(first)).toEqual(['value', 'next', 'hasMore']);
    expect(first.value.map((e: FedEvent) => e.seq)).toEqual([from + 1, from + 2]);
    expect(first).toMatchObject({ next: from + 2, hasMore: true });
    const second = await page(first.next, 2);
    expect(second.value.map((e: FedEvent) => e.seq)).toEqual([from + 3, from + 4]);
    expect(second).toMatchObject({ next: from + 4, hasMore: true });
    const last = await page(second.next, 2);
    expect(last.value.map((e: FedEvent) => e.seq)).toEqual([from + 5]);
    expect(last).toMatchObject({ next: from + 5, hasMore: false });
    expect(await page(last.next, 2)).toEqual({ value: [], next: from + 5, hasMore: false });
    expect(await page(from + 1000, 2)).toEqual({ value: [], next: from + 1000, hasMore: false });
    // Without parameters: from the start, 100 at most.
    const start = (await feed(t, admin.bearer)).body;
    expect(start.value[0].seq).toBe(1);
    expect(start.value.length).toBe(Math.min(100, from + 5));
    expect(start.hasMore).toBe(from + 5 > 100);
  });

  it('answers a page as the very JSON text res.json() would send of it, each event\'s data as it was recorded', async () => {
    const from = await lastSeq(t);
    const item = await givenItem(t, admin.bearer, { description: 'Quote " backslash \\ slash / ünïcödé 😀 end' });
    await givenStock(t, admin.bearer, { itemID: item.shortID, units: 2.5 });
    await issue(t, admin.bearer, { itemID: item.shortID, units: 0.0001 }).expect(200);
    const res = await feed(t, admin.bearer, { after: from, limit: 1000 });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const caller = (await t.app.get(AccessService).callerOf(admin.clientId))!;
    // The same page built as objects (what the webhook relay delivers), written out by JSON.stringify as res.json() does.
    const objects = await t.app.get(EventsService).page(caller, { after: from, limit: 1000 }, 'strong');
    expect(objects.value.map((e) => e.type)).toEqual(['item.created', 'stock.received', 'stock.issued']);
    expect(res.text).toBe(JSON.stringify(objects));
    expect(res.body.value[0].data.description).toBe(item.description);
  });

  it('sends a page longer than one piece of text whole: the same text, the pieces joined at event boundaries', async () => {
    const item = await givenItem(t, admin.bearer, { description: 'Piece ü 😀 '.repeat(20) });
    const from = await lastSeq(t);
    // 200 Receives of about 850 characters of event each: the page's text is two pieces and a part.
    await batch(t, admin.bearer, Array.from({ length: 200 }, (_, i) => ({ op: 'receive', itemID: item.shortID, wid: 1 + (i % 3), units: 1, reasonCode: 1, remark: `piece ${i}` }))).expect(200);
    const res = await feed(t, admin.bearer, { after: from, limit: 1000 });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text.length).toBeGreaterThan(2 * TEXT_PIECE);
    const caller = (await t.app.get(AccessService).callerOf(admin.clientId))!;
    const objects = await t.app.get(EventsService).page(caller, { after: from, limit: 1000 }, 'strong');
    expect(objects.value).toHaveLength(200);
    expect(res.text).toBe(JSON.stringify(objects));
    // Cut short by limit: hasMore and next as a whole page would have them.
    const first = await feed(t, admin.bearer, { after: from, limit: 199 });
    expect(first.text).toBe(JSON.stringify(await t.app.get(EventsService).page(caller, { after: from, limit: 199 }, 'strong')));
    expect(first.body).toMatchObject({ next: from + 199, hasMore: true });
  });

  it.each([
    ['after', '-1'],
    ['after', '1.5'],
    ['after', 'x'],
    ['limit', '0'],
    ['limit', '1001'],
    ['limit', 'ten'],
    ['types', 'stock.sold'],
    ['types', 'stock.received,'],
    ['types', ''],
    ['types', '*'],
  ])('refuses %s=%j as a validation_error on that parameter', async (name, value) => {
    const res = await request(t.http).get(`/api/v1/Events?${name}=${encodeURIComponent(value)}`).set('Authorization', admin.bearer);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'validation_error' });
    expect(Object.keys(res.body.details)).toEqual([name]);
  });

  it("shows a client its own write's event when it reads the feed right after the write's answer (no wait of its own)", async () => {
    const item = await givenItem(t, admin.bearer, { description: 'Read your writes' });
    let from = await lastSeq(t);
    for (let i = 0; i < 20; i++) {
      const received = await receive(t, admin.bearer, { itemID: item.shortID, units: 1 }).expect(201);
      // Straight to the feed: the write's publishing turn may still be running; the read waits for it.
      const res = await request(t.http).get('/api/v1/Events').query({ after: from, types: 'stock.received' }).set('Authorization', admin.bearer).expect(200);
      expect(res.body.value.map((e: FedEvent) => e.data.recNo)).toEqual([received.body.recNo]);
      from = res.body.next;
    }
  });

  it('refuses a repeated parameter, and a caller without SecurityID 11 or without a token', async () => {
    expect((await request(t.http).get('/api/v1/Events?after=1&after=2').set('Authorization', admin.bearer)).status).toBe(400);
    const writer = await givenClient(t, { permissions: [SecurityId.PositiveAdjustment] });
    const refused = await request(t.http).get('/api/v1/Events').set('Authorization', writer.bearer);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Insufficient permissions.');
    expect((await request(t.http).get('/api/v1/Events')).status).toBe(401);
  });

  it('gives seqs to events whose commit was not followed by a turn of the sequencer (a crash), within a sweep', async () => {
    const from = await lastSeq(t);
    // A committed event row without its seq, as a process killed right after its commit leaves it.
    await t.dataSource.query(
      "INSERT INTO event (id, seq, unitId, pos, type, occurred, wid, toWid, data) VALUES ('00000000-0000-4000-8000-000000000001', NULL, 'crashed-unit', 0, 'item.updated', ?, NULL, NULL, '{}')",
      [testDatabaseKind() === 'mysql' ? new Date() : new Date().toISOString().replace('T', ' ').replace('Z', '')],
    );
    const deadline = Date.now() + 5000;
    let events: FedEvent[] = [];
    while (!events.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      events = await eventsAfter(t, admin.bearer, from);
    }
    expect(events.map((e) => [e.seq, e.id])).toEqual([[from + 1, '00000000-0000-4000-8000-000000000001']]);
  });

  it('prunes events older than EVENTS_RETENTION_DAYS, oldest first, and keeps the rest and their seqs', async () => {
    const item = await givenItem(t, admin.bearer);
    const from = await lastSeq(t);
    await givenStock(t, admin.bearer, { itemID: item.shortID, units: 1 });
    const sequencer = t.app.get(EventSequencer);
    // Pruning takes sequenced rows only: the last commit's turn may still be running (or have left a row to the sweeper).
    await sequencer.settled();
    await sequencer.claim();
    const total = await eventRows(t);
    expect(await sequencer.prune(new Date(Date.now() + 29 * 24 * 3600 * 1000))).toBe(0);
    expect(await sequencer.prune(new Date(Date.now() + 31 * 24 * 3600 * 1000))).toBe(total);
    expect(await eventRows(t)).toBe(0);
    await givenStock(t, admin.bearer, { itemID: item.shortID, units: 1 });
    expect((await eventsAfter(t, admin.bearer, 0)).map((e) => e.seq)).toEqual([from + 2]);
  });
});

/** EVENTS_ENABLED=false: writes record no event and publish nothing; the feed is empty; the writes themselves are unchanged. */
describe(`Events switched off (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp({ config: { eventsEnabled: false } });
    admin = await givenClient(t, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  it('records no event for an item change or a stock change, and the feed is empty', async () => {
    const item = await givenItem(t, admin.bearer, { description: 'No events' });
    await receive(t, admin.bearer, { itemID: item.shortID, units: 5 }).expect(201);
    await issue(t, admin.bearer, { itemID: item.shortID, units: 2 }).expect(200);
    await move(t, admin.bearer, { itemID: item.shortID, units: 1, shipToWid: 2 }).expect(200);
    expect(await eventRows(t)).toBe(0);
    const res = await feed(t, admin.bearer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ value: [], next: 0, hasMore: false });
  });
});
