import request from 'supertest';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, givenStock, issue, move, stockOf } from './support/inventory.js';

/**
 * Two instances of the service on one database, hit at once: stock is never
 * oversold, never lost or invented, and no request fails with a 5xx.
 */
describe(`concurrency across two instances (${testDatabaseKind()})`, () => {
  let a: TestApp;
  let b: TestApp;
  let client: TestClient;
  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({ database: a.database });
    client = await givenClient(a, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(a);
    await b.close();
    await a.close();
  });

  const instance = (i: number) => (i % 2 === 0 ? a : b);

  it('sells exactly 50 of 80 concurrent 1-unit issues against 50 units', async () => {
    const { shortID } = await givenItem(a, client.bearer);
    for (let i = 0; i < 5; i++) await givenStock(a, client.bearer, { itemID: shortID, units: 10, spot: `S${i}` });
    const statuses = await Promise.all(Array.from({ length: 80 }, (_, i) => issue(instance(i), client.bearer, { itemID: shortID, units: 1 }).then((r) => r.status)));
    const count = (s: number) => statuses.filter((x) => x === s).length;
    expect({ ok: count(200), conflict: count(409), other: statuses.length - count(200) - count(409) }).toEqual({ ok: 50, conflict: 30, other: 0 });
    expect(await stockOf(a, client.bearer, shortID, 1)).toMatchObject({ inStock: 0, available: 0 });
    const lots = await request(a.http).get(`/api/v1/Inventory?itemID=${shortID}&pageSize=250`).set('Authorization', client.bearer);
    expect(lots.body.value.filter((l: { active: boolean }) => l.active)).toEqual([]);
  });

  it('keeps the total through 40 concurrent crossing moves A→B and B→A, with no 5xx', async () => {
    const { shortID } = await givenItem(a, client.bearer);
    await givenStock(a, client.bearer, { itemID: shortID, units: 30, wid: 1 });
    await givenStock(a, client.bearer, { itemID: shortID, units: 30, wid: 2 });
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        move(instance(i), client.bearer, i % 2 === 0 ? { itemID: shortID, units: 1.5, wid: 1, shipToWid: 2 } : { itemID: shortID, units: 1.5, wid: 2, shipToWid: 1 }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const moved = (s: number) => statuses.filter((x, i) => x === 200 && i % 2 === s).length * 1.5;
    const one = await stockOf(a, client.bearer, shortID, 1);
    const two = await stockOf(a, client.bearer, shortID, 2);
    expect(one!.inStock + two!.inStock).toBe(60);
    expect(one!.inStock).toBe(30 - moved(0) + moved(1));
  });
});
