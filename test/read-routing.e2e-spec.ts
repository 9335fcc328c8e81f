import request from 'supertest';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source.js';
import { runMigrations } from '../src/database/run-migrations.js';
import { createTestDatabase, startTestApp, testDatabaseKind, type TestApp, type TestDatabase } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { receive } from './support/inventory.js';
import { metricValue, parseMetrics } from './support/metrics.js';
import { freePort } from './support/redis-process.js';

/**
 * Where lists read (DATABASE_READ_URL, `Consistency`). On both databases: the
 * header's values, and that without a replica every list reads the primary.
 * On MariaDB the routing itself: a "replica" that is another database on the
 * same server, migrated and empty, shows exactly which reads went where (a
 * list that reads it sees nothing the service wrote); and a replica that
 * does not answer costs nothing but its fallback. The replica kept in step by
 * real binlog replication is `test/galera/replica.galera-spec.ts`.
 */

/** Every list route (all read where ListReads sends them), as a client calls it. */
const LISTS = [
  '/api/v1/Item',
  '/api/v1/Item/All',
  '/api/v1/Item?Category=7',
  '/api/v1/Inventory',
  '/api/v1/Inventory/1',
  '/api/v1/Inventory/StockLevels',
  '/api/v1/Inventory/StockLevels/1',
  '/api/v1/Inventory/Transactions',
  '/api/v1/Events',
];

/** How many rows a list answer holds: a page's `value`, the feed's `value`, or the category's flat array. */
function rowsOf(body: unknown): number {
  if (Array.isArray(body)) return body.length;
  return (body as { value: unknown[] }).value.length;
}

async function listReads(t: TestApp): Promise<Record<string, number>> {
  const samples = parseMetrics((await request(t.http).get('/metrics')).text);
  return Object.fromEntries(['replica', 'primary', 'fallback'].map((source) => [source, metricValue(samples, 'db_list_reads_total', { source }) ?? 0]));
}

describe(`list reads and the Consistency header (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let client: TestClient;

  beforeAll(async () => {
    t = await startTestApp();
    client = await givenClient(t);
    const item = await givenItem(t, client.bearer, { category: 7 });
    expect((await receive(t, client.bearer, { itemID: item.shortID, units: 3 })).status).toBe(201);
  });

  afterAll(() => t?.close());

  it.each(LISTS)('%s takes Consistency strong or eventual in any case, and refuses anything else', async (path) => {
    for (const value of [undefined, 'strong', 'Strong', 'EVENTUAL', ' eventual ']) {
      const req = request(t.http).get(path).set('Authorization', client.bearer);
      const res = await (value === undefined ? req : req.set('Consistency', value));
      expect({ value, status: res.status }).toEqual({ value, status: 200 });
      expect(rowsOf(res.body)).toBeGreaterThan(0);
    }
    for (const value of ['strng', 'weak', 'strong, eventual', '1']) {
      const res = await request(t.http).get(path).set('Authorization', client.bearer).set('Consistency', value);
      expect({ value, status: res.status }).toEqual({ value, status: 400 });
      expect(res.body).toEqual({ statusCode: 400, error: 'validation_error', message: 'Model validation failed.', details: { Consistency: ['Consistency must be strong or eventual'] } });
    }
  });

  it('reads every list from the primary without a replica, and says nothing of one in /health', async () => {
    const before = await listReads(t);
    for (const path of LISTS) expect((await request(t.http).get(path).set('Authorization', client.bearer)).status).toBe(200);
    const after = await listReads(t);
    expect(after.primary - before.primary).toBeGreaterThanOrEqual(LISTS.length);
    expect(after.replica).toBe(0);
    expect(after.fallback).toBe(0);
    const ready = await request(t.http).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', database: 'up' });
  });
});

const mariadbOnly = testDatabaseKind() === 'mysql' ? describe : describe.skip;

mariadbOnly('list reads with DATABASE_READ_URL (mysql)', () => {
  describe('a replica that is another database', () => {
    let t: TestApp;
    let replica: TestDatabase;
    let client: TestClient;

    beforeAll(async () => {
      // The "replica": the same schema, none of the primary's rows. Whatever a list shows, it read from where it says.
      replica = await createTestDatabase();
      const ds = await new DataSource(dataSourceOptions(replica.target)).initialize();
      await runMigrations(ds);
      await ds.destroy();
      t = await startTestApp({ config: { databaseReadUrl: replica.url } });
      client = await givenClient(t);
      const item = await givenItem(t, client.bearer, { category: 7 });
      expect((await receive(t, client.bearer, { itemID: item.shortID, units: 3 })).status).toBe(201);
      // The replica connects in the background: wait until readiness sees it.
      for (let i = 0; (await request(t.http).get('/health/ready')).body.replica !== 'up'; i++) {
        if (i > 100) throw new Error('the replica never came up');
        await new Promise((r) => setTimeout(r, 50));
      }
    });

    afterAll(async () => {
      await t?.close();
      await replica?.drop();
    });

    it.each(LISTS)('%s reads the replica by default and the primary with Consistency: strong', async (path) => {
      const before = await listReads(t);
      const eventual = await request(t.http).get(path).set('Authorization', client.bearer);
      expect(eventual.status).toBe(200);
      expect(rowsOf(eventual.body)).toBe(0);
      if (!path.includes('Category') && !path.includes('Events')) expect(eventual.body.totalCount).toBe(0);
      const strong = await request(t.http).get(path).set('Authorization', client.bearer).set('Consistency', 'strong');
      expect(strong.status).toBe(200);
      expect(rowsOf(strong.body)).toBeGreaterThan(0);
      const after = await listReads(t);
      expect({ replica: after.replica - before.replica, primary: after.primary - before.primary, fallback: after.fallback - before.fallback }).toEqual({
        // The category list reads in pieces, each a list read of its own: one piece here.
        replica: 1,
        primary: 1,
        fallback: 0,
      });
    });

    it('keeps tokens, point reads, key lookups and writes on the primary', async () => {
      const other = await givenClient(t);
      const item = await givenItem(t, other.bearer);
      expect((await request(t.http).get(`/api/v1/Item/${item.partNo}`).set('Authorization', other.bearer)).status).toBe(200);
      expect((await request(t.http).get('/api/v1/Item').query({ key: item.shortID }).set('Authorization', other.bearer)).status).toBe(200);
      expect((await receive(t, other.bearer, { itemID: item.shortID, units: 2 })).status).toBe(201);
      const issued = await request(t.http).post('/api/v1/Inventory/Issue').set('Authorization', other.bearer).send({ itemID: item.shortID, units: 1, wid: 1, reasonCode: 2 });
      expect(issued.status).toBe(200);
      const ready = await request(t.http).get('/health/ready');
      expect(ready.body).toEqual({ status: 'ok', database: 'up', replica: 'up' });
    });
  });

  describe('a replica that does not answer', () => {
    let t: TestApp;
    let client: TestClient;

    beforeAll(async () => {
      // A port nobody listens on: every connection is refused.
      const url = new URL(process.env.TEST_MYSQL_URL!);
      url.port = String(await freePort());
      url.pathname = '/nowhere';
      t = await startTestApp({ config: { databaseReadUrl: url.toString() } });
      client = await givenClient(t);
      const item = await givenItem(t, client.bearer, { category: 7 });
      expect((await receive(t, client.bearer, { itemID: item.shortID, units: 3 })).status).toBe(201);
    });

    afterAll(() => t?.close());

    it('starts, answers every list from the primary, and reports the replica down while ready', async () => {
      for (const path of LISTS) {
        const res = await request(t.http).get(path).set('Authorization', client.bearer);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect(rowsOf(res.body)).toBeGreaterThan(0);
      }
      const reads = await listReads(t);
      expect(reads.replica).toBe(0);
      expect(reads.fallback).toBeGreaterThanOrEqual(LISTS.length);
      const ready = await request(t.http).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ok', database: 'up', replica: 'down' });
      expect((await request(t.http).get('/health')).body).toEqual({ status: 'ok', database: 'up', replica: 'down' });
    });
  });
});
