import request from 'supertest';
import { SecurityId } from '../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { count, expectLedgerConsistent, givenStock, lotsOf, stockOf } from './support/inventory.js';

/** POST /Inventory/Count: compare-and-set, more and fewer counted, held lots last, permissions by direction, races. */
describe(`Count (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  const activeLots = async (shortID: string, wid = 1) =>
    (await lotsOf(t, admin.bearer, shortID, wid)).filter((l) => l.active).map((l) => [l.recNo, l.spot, l.units, l.hold]);
  const countRows = async (shortID: string) =>
    ((await request(t.http).get(`/api/v1/Inventory/Transactions?itemID=${shortID}&pageSize=250`).set('Authorization', admin.bearer)).body.value as Array<Record<string, unknown>>)
      .filter((r) => r.operation === 'count')
      .map((r) => [r.units, r.fromWid, r.toWid, r.reasonCode]);

  it('receives the difference into a new lot when more are counted, after the expected check', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: shortID, units: 10, spot: 'A' });
    await givenStock(t, admin.bearer, { itemID: shortID, units: 20, spot: 'A' });
    const res = await count(t, admin.bearer, { itemID: shortID, counted: 42.5, expected: 30, spot: 'A', remark: 'stock-take' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'counted', before: 30, counted: 42.5, delta: 12.5, lots: [{ recNo: expect.any(Number), fromRecNo: null, units: 12.5 }] });
    const lot = (await lotsOf(t, admin.bearer, shortID, 1)).find((l) => l.recNo === res.body.lots[0].recNo)!;
    expect(lot).toMatchObject({ units: 12.5, spot: 'A', serial: '', remark: 'stock-take', hold: false, active: true });
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 42.5, available: 42.5 });
    expect(await countRows(shortID)).toEqual([[12.5, null, 1, 5]]);
  });

  it('issues the difference when fewer are counted, held lots last, and onHold follows', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const held = await givenStock(t, admin.bearer, { itemID: shortID, units: 10, hold: true });
    const free = await givenStock(t, admin.bearer, { itemID: shortID, units: 20 });
    const first = await count(t, admin.bearer, { itemID: shortID, counted: 15 });
    expect(first.body).toMatchObject({ status: 'counted', before: 30, counted: 15, delta: -15 });
    expect(first.body.lots).toEqual([{ recNo: expect.any(Number), fromRecNo: free, units: -15 }]);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 15, onHold: 10, available: 5 });
    const second = await count(t, admin.bearer, { itemID: shortID, counted: 5, expected: 15 });
    expect(second.body).toMatchObject({ before: 15, delta: -10 });
    expect(second.body.lots).toEqual([
      { recNo: free, fromRecNo: free, units: -5 },
      { recNo: expect.any(Number), fromRecNo: held, units: -5 },
    ]);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 5, onHold: 5, available: 0 });
    expect(await activeLots(shortID)).toEqual([[held, '', 5, true]]);
  });

  it('records an equal count as one ledger row of 0 and changes nothing else; a selector counts only its lots', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: shortID, units: 7, spot: 'A' });
    await givenStock(t, admin.bearer, { itemID: shortID, units: 3, spot: 'B' });
    const equal = await count(t, admin.bearer, { itemID: shortID, counted: 7, expected: 7, spot: 'A' });
    expect(equal.body).toEqual({ status: 'counted', before: 7, counted: 7, delta: 0, lots: [] });
    const nothingThere = await count(t, admin.bearer, { itemID: shortID, counted: 0, spot: 'EMPTY' });
    expect(nothingThere.body).toEqual({ status: 'counted', before: 0, counted: 0, delta: 0, lots: [] });
    expect(await countRows(shortID)).toEqual([[0, 1, 1, 5], [0, 1, 1, 5]]);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 10 });
  });

  it('counts into a warehouse the item has no stock in yet', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const res = await count(t, admin.bearer, { itemID: shortID, wid: 2, counted: 4, expected: 0 });
    expect(res.body).toMatchObject({ before: 0, delta: 4 });
    expect(await stockOf(t, admin.bearer, shortID, 2)).toMatchObject({ inStock: 4 });
  });

  it('refuses a stale expected with 409 naming the units on hand, and changes nothing', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: shortID, units: 12 });
    const res = await count(t, admin.bearer, { itemID: shortID, counted: 20, expected: 11.5 });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict', message: `Count of ${shortID} in warehouse 1 expected 11.5 units on hand, but 12 are.` });
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 12 });
    expect(await countRows(shortID)).toEqual([]);
  });

  it('needs 95 to add and 88 to take, decided after the expected check; either for an equal count; neither is refused at once', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: shortID, units: 10 });
    const adder = await givenClient(t, { permissions: [SecurityId.PositiveAdjustment] });
    const taker = await givenClient(t, { permissions: [SecurityId.NegativeAdjustment] });
    const mover = await givenClient(t, { permissions: [SecurityId.LocateMoveUnits] });
    const readOnly = await givenClient(t, { readOnly: true });
    const denied = { statusCode: 403, error: 'forbidden', message: 'Insufficient permissions.' };
    expect((await count(t, taker.bearer, { itemID: shortID, counted: 11 })).body).toMatchObject(denied);
    expect((await count(t, adder.bearer, { itemID: shortID, counted: 9 })).body).toMatchObject(denied);
    expect((await count(t, mover.bearer, { itemID: shortID, counted: 10 })).body).toMatchObject(denied);
    expect((await count(t, readOnly.bearer, { itemID: shortID, counted: 10 })).body).toMatchObject({ statusCode: 403, message: 'Account is read-only.' });
    // The compare-and-set comes first: a stale expected is 409 whoever asks.
    expect((await count(t, taker.bearer, { itemID: shortID, counted: 11, expected: 3 })).status).toBe(409);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 10 });
    await count(t, adder.bearer, { itemID: shortID, counted: 10 }).expect(200);
    await count(t, taker.bearer, { itemID: shortID, counted: 10 }).expect(200);
    await count(t, adder.bearer, { itemID: shortID, counted: 11 }).expect(200);
    await count(t, taker.bearer, { itemID: shortID, counted: 9 }).expect(200);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 9 });
  });

  it('validates counted and expected, and scope', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    for (const [body, field] of [
      [{ itemID: shortID }, 'counted'],
      [{ itemID: shortID, counted: -1 }, 'counted'],
      [{ itemID: shortID, counted: 1.00001 }, 'counted'],
      [{ itemID: shortID, counted: 1, expected: -0.0001 }, 'expected'],
      [{ itemID: shortID, counted: 1, expected: 'x' }, 'expected'],
      [{ itemID: 'NO-SUCH-ITEM', counted: 1 }, 'itemID'],
    ] as const) {
      const res = await count(t, admin.bearer, body);
      expect({ body, status: res.status, fields: Object.keys(res.body.details ?? {}) }).toEqual({ body, status: 400, fields: [field] });
    }
    // EXTENSIONS "Count": counted is ≥ 0, and the message says so in those terms.
    expect((await count(t, admin.bearer, { itemID: shortID, counted: -1 })).body.details).toEqual({ counted: ['counted must not be less than 0'] });
    expect((await count(t, admin.bearer, { itemID: shortID, counted: 1, expected: -0.0001 })).body.details).toEqual({ expected: ['expected must not be less than 0'] });
    await count(t, admin.bearer, { itemID: shortID, counted: 0, expected: 0 }).expect(200);
    const scoped = await givenClient(t, { warehouses: [1] });
    expect((await count(t, scoped.bearer, { itemID: shortID, counted: 1, wid: 2 })).body.message).toBe("Warehouse is outside the client's authorized scope.");
  });

  it('refuses to count more of a discontinued item, but counts fewer', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: shortID, units: 5 });
    await request(t.http).delete(`/api/v1/Item/${shortID}`).set('Authorization', admin.bearer).expect(200);
    expect((await count(t, admin.bearer, { itemID: shortID, counted: 6 })).body).toEqual({
      statusCode: 409,
      error: 'conflict',
      message: `Item ${shortID} is discontinued; it cannot be counted up.`,
      details: { reason: 'item_discontinued', itemID: shortID },
    });
    await count(t, admin.bearer, { itemID: shortID, counted: 4 }).expect(200);
  });

  it('replays a keyed Count', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const first = await count(t, admin.bearer, { itemID: shortID, counted: 3, expected: 0 }, 'count-once');
    const again = await count(t, admin.bearer, { itemID: shortID, counted: 3, expected: 0 }, 'count-once');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 3 });
  });

  it('lets exactly one of 10 racing counts with the same expected win', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: shortID, units: 50 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => count(t, admin.bearer, { itemID: shortID, counted: 40 + i, expected: 50 })));
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409 && r.body.error === 'conflict')).toHaveLength(9);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: won[0].body.counted });
    await expectLedgerConsistent(t);
  });
});
