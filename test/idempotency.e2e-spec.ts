import { createHash } from 'node:crypto';
import request from 'supertest';
import { IdempotencyRecord } from '../src/idempotency/idempotency.entity.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, givenStock, issue, move, receive, stockOf } from './support/inventory.js';

const count = async (t: TestApp, table: string) => Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);

describe(`Idempotency-Key (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let client: TestClient;
  let other: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    client = await givenClient(t, { warehouses: [1, 2] });
    other = await givenClient(t, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  it('replays a Receive: the same status and body, Idempotent-Replayed: true, nothing done twice', async () => {
    const { shortID } = await givenItem(t, client.bearer);
    const body = { itemID: shortID, units: 5 };
    const first = await receive(t, client.bearer, body, 'rcv-1');
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const lots = await count(t, 'lot');
    const ledger = await count(t, 'ledger_entry');
    const again = await receive(t, client.bearer, { units: 5, itemID: shortID }, 'rcv-1');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await count(t, 'lot')).toBe(lots);
    expect(await count(t, 'ledger_entry')).toBe(ledger);
    expect((await stockOf(t, client.bearer, shortID, 1))?.inStock).toBe(5);
  });

  it('replays an Issue and a Move', async () => {
    const { shortID } = await givenItem(t, client.bearer);
    await givenStock(t, client.bearer, { itemID: shortID, units: 10 });
    const i1 = await issue(t, client.bearer, { itemID: shortID, units: 2 }, 'iss-1');
    const i2 = await issue(t, client.bearer, { itemID: shortID, units: 2 }, 'iss-1');
    expect([i1.status, i2.status]).toEqual([200, 200]);
    expect(i2.body).toEqual(i1.body);
    const m1 = await move(t, client.bearer, { itemID: shortID, units: 3, shipToWid: 2 }, 'mov-1');
    const m2 = await move(t, client.bearer, { itemID: shortID, units: 3, shipToWid: 2 }, 'mov-1');
    expect(m2.body).toEqual(m1.body);
    expect(m2.headers['idempotent-replayed']).toBe('true');
    expect(await stockOf(t, client.bearer, shortID, 1)).toMatchObject({ inStock: 5 });
    expect(await stockOf(t, client.bearer, shortID, 2)).toMatchObject({ inStock: 3 });
  });

  it('replays POST /Item with its Location', async () => {
    const first = await request(t.http).post('/api/v1/Item').set('Authorization', client.bearer).set('Idempotency-Key', 'item-1').send({ shortID: 'IDEM-ITEM' });
    const again = await request(t.http).post('/api/v1/Item').set('Authorization', client.bearer).set('Idempotency-Key', 'item-1').send({ shortID: 'IDEM-ITEM' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('refuses the same key with another body: 422 idempotency_key_reused, nothing done', async () => {
    const { shortID } = await givenItem(t, client.bearer);
    await receive(t, client.bearer, { itemID: shortID, units: 1 }, 'rcv-2');
    const lots = await count(t, 'lot');
    const res = await receive(t, client.bearer, { itemID: shortID, units: 2 }, 'rcv-2');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ statusCode: 422, error: 'idempotency_key_reused', message: 'This Idempotency-Key was used with another request body.', details: null });
    expect(await count(t, 'lot')).toBe(lots);
  });

  it('keeps keys per client', async () => {
    const { shortID } = await givenItem(t, client.bearer);
    const mine = await receive(t, client.bearer, { itemID: shortID, units: 1 }, 'shared-key');
    const theirs = await receive(t, other.bearer, { itemID: shortID, units: 1 }, 'shared-key');
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.recNo).not.toBe(mine.body.recNo);
    expect((await stockOf(t, client.bearer, shortID, 1))?.inStock).toBe(2);
  });

  it('does not store a failure: the same key can be used again once the request can succeed', async () => {
    const { shortID } = await givenItem(t, client.bearer);
    const failed = await issue(t, client.bearer, { itemID: shortID, units: 1 }, 'retry-me');
    expect(failed.status).toBe(409);
    await givenStock(t, client.bearer, { itemID: shortID, units: 1 });
    const ok = await issue(t, client.bearer, { itemID: shortID, units: 1 }, 'retry-me');
    expect(ok.status).toBe(200);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers 409 while a request with the same key is in flight', async () => {
    const { shortID } = await givenItem(t, client.bearer);
    const body = { itemID: shortID, units: 1, reasonCode: 1, wid: 1 };
    // What the service stores when it claims a key, for a request still running.
    const requestHash = createHash('sha256').update(`POST /api/v1/Inventory/Receive ${JSON.stringify({ itemID: shortID, reasonCode: 1, units: 1, wid: 1 })}`).digest('hex');
    await t.dataSource.getRepository(IdempotencyRecord).insert({
      clientId: client.clientId,
      keyHash: createHash('sha256').update('in-flight').digest('hex'),
      requestHash,
      state: 'pending',
      status: null,
      body: null,
      created: new Date(),
    });
    const res = await request(t.http).post('/api/v1/Inventory/Receive').set('Authorization', client.bearer).set('Idempotency-Key', 'in-flight').send(body);
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('A request with this Idempotency-Key is still in progress.');
  });

  it('refuses an over-long key', async () => {
    const res = await receive(t, client.bearer, { itemID: 'X', units: 1 }, 'k'.repeat(256));
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual({ 'Idempotency-Key': ['Idempotency-Key must be 1 to 255 printable characters'] });
  });
});

describe(`Idempotency-Key across a restart (${testDatabaseKind()})`, () => {
  it('still replays after the service restarts', async () => {
    const first = await startTestApp();
    const client = await givenClient(first);
    const { shortID } = await givenItem(first, client.bearer);
    const original = await receive(first, client.bearer, { itemID: shortID, units: 4 }, 'survives');
    await first.app.close();
    const second = await startTestApp({ database: first.database });
    try {
      const replay = await receive(second, client.bearer, { itemID: shortID, units: 4 }, 'survives');
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(original.body);
      expect((await stockOf(second, client.bearer, shortID, 1))?.inStock).toBe(4);
      await expectLedgerConsistent(second);
    } finally {
      await second.app.close();
      await first.database.drop();
    }
  });
});
