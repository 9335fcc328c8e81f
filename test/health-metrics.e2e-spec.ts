import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import mysql from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source.js';
import { poolUse } from '../src/database/pool-use.js';
import { Readiness } from '../src/health/readiness.js';
import { createTestDatabase, startTestApp, testDatabaseKind, type TestApp, type TestDatabase } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { startService } from './support/service-process.js';
import { parseMetrics as parse, metricValue as value, type Sample } from './support/metrics.js';

async function scrape(t: TestApp): Promise<Sample[]> {
  const res = await request(t.http).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain;.* version=0\.0\.4/);
  return parse(res.text);
}

describe(`health, readiness and metrics (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t);
  });
  afterAll(() => t.close());

  it('answers /health/live and /health/ready without a token, outside /api/v1', async () => {
    expect((await request(t.http).get('/health/live')).body).toEqual({ status: 'ok' });
    const ready = await request(t.http).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', database: 'up' });
    expect((await request(t.http).get('/api/v1/health/ready')).status).toBe(404);
  });

  it('counts requests by route template, never by the path sent; stock operations once, replays apart', async () => {
    const { shortID, partNo } = await givenItem(t, admin.bearer);
    const unmatchedBefore = value(await scrape(t), 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) ?? 0;
    expect((await request(t.http).get(`/api/v1/Item/${partNo}`).set('Authorization', admin.bearer)).status).toBe(200);
    expect((await request(t.http).get('/api/v1/NoSuchThing-4711').set('Authorization', admin.bearer)).status).toBe(404);
    const receive = () =>
      request(t.http)
        .post('/api/v1/Inventory/Receive')
        .set('Authorization', admin.bearer)
        .set('Idempotency-Key', 'metrics-receive-1')
        .send({ itemID: shortID, units: 5, wid: 1, reasonCode: 1 });
    expect((await receive()).status).toBe(201);
    const replay = await receive();
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');

    const res = await request(t.http).get('/metrics');
    expect(res.text).not.toContain('NoSuchThing-4711');
    expect(res.text).not.toContain(shortID);
    const samples = parse(res.text);
    expect(value(samples, 'http_requests_total', { method: 'GET', route: '/api/v1/Item/:item', status: '200' })).toBe(1);
    expect(value(samples, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(unmatchedBefore + 1);
    expect(value(samples, 'http_requests_total', { method: 'POST', route: '/api/v1/Inventory/Receive', status: '201' })).toBe(2);
    expect(value(samples, 'http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/Inventory/Receive', status: '201' })).toBe(2);
    expect(value(samples, 'stock_operations_total', { type: 'receive' })).toBe(1);
    expect(value(samples, 'idempotent_replays_total')).toBe(1);
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    if (testDatabaseKind() === 'mysql') {
      expect(value(samples, 'db_pool_connections')).toBeGreaterThanOrEqual(1);
      expect(value(samples, 'db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
      expect(value(samples, 'db_pool_connections', { state: 'in_use' })).toBeGreaterThanOrEqual(0);
      expect(value(samples, 'db_pool_waits_total')).toBeGreaterThanOrEqual(0);
    } else {
      // SQLite has one connection and one writer: no pool to report.
      expect(value(samples, 'db_pool_connections')).toBeUndefined();
      expect(value(samples, 'db_pool_waits_total')).toBeUndefined();
    }
  });

  (testDatabaseKind() === 'mysql' ? it : it.skip)("counts the pool's connections from its events: in use, idle, waits, and one the server ends (MySQL/MariaDB only)", async () => {
    const db = await createTestDatabase();
    // One connection at most, so that a second request waits for it.
    const options = dataSourceOptions(db.target);
    if (options.type !== 'mysql') throw new Error('a MySQL/MariaDB data source');
    const ds = await new DataSource({ ...options, poolSize: 1 }).initialize();
    const server = await mysql.createConnection(db.url);
    try {
      const use = poolUse(ds)!;
      // TypeORM opened the first connection to check it, and gave it back.
      expect([use.inUse, use.idle, use.waits]).toEqual([0, 1, 0]);
      const first = ds.createQueryRunner();
      await first.connect();
      expect([use.inUse, use.idle, use.waits]).toEqual([1, 0, 0]);
      const second = ds.createQueryRunner();
      const waiting = second.connect();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect([use.inUse, use.idle, use.waits]).toEqual([1, 0, 1]);
      // Released while the second waits: it goes straight to the second, still in use.
      await first.release();
      await waiting;
      expect([use.inUse, use.idle, use.waits]).toEqual([1, 0, 1]);
      const [{ id }] = (await second.query('SELECT CONNECTION_ID() AS id')) as Array<{ id: number }>;
      await second.release();
      expect([use.inUse, use.idle, use.waits]).toEqual([0, 1, 1]);
      // The server ends the idle connection: the pool drops it, and so does the count.
      await server.query('KILL ?', [id]);
      for (let i = 0; i < 100 && use.idle > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect([use.inUse, use.idle, use.waits]).toEqual([0, 0, 1]);
      // The next query opens another.
      expect(await ds.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      expect([use.inUse, use.idle, use.waits]).toEqual([0, 1, 1]);
    } finally {
      await server.end();
      await ds.destroy();
      await db.drop();
    }
  });

  it('counts a Batch once, as batch, and nothing for a refused operation', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const before = await scrape(t);
    const batch = await request(t.http)
      .post('/api/v1/Inventory/Batch')
      .set('Authorization', admin.bearer)
      .send({ operations: [{ op: 'receive', itemID: shortID, units: 1, wid: 1, reasonCode: 1 }] });
    expect(batch.status).toBe(200);
    const refused = await request(t.http).post('/api/v1/Inventory/Issue').set('Authorization', admin.bearer).send({ itemID: shortID, units: 50, wid: 1, reasonCode: 2 });
    expect(refused.status).toBe(409);
    const after = await scrape(t);
    expect((value(after, 'stock_operations_total', { type: 'batch' }) ?? 0) - (value(before, 'stock_operations_total', { type: 'batch' }) ?? 0)).toBe(1);
    expect(value(after, 'stock_operations_total', { type: 'issue' }) ?? 0).toBe(value(before, 'stock_operations_total', { type: 'issue' }) ?? 0);
    expect(value(after, 'http_requests_total', { route: '/api/v1/Inventory/Issue', status: '409' })).toBe(1);
  });

  it('answers 503 on /health/ready while draining, naming it, logged at warn without a stack; /health/live stays 200', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const other = await startTestApp({ logger: pino({ level: 'debug' }, sink) });
    try {
      other.app.get(Readiness).drain();
      const ready = await request(other.http).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ statusCode: 503, error: 'service_unavailable', message: 'Not ready: instance draining.', details: null });
      expect((await request(other.http).get('/health/live')).status).toBe(200);
      // DECISIONS "Errors": an expected refusal (a 503 while draining) is logged at most at warn, without a stack trace.
      const about = lines.filter((line) => line.reqId === ready.headers['x-request-id']);
      expect(about.length).toBeGreaterThan(0);
      expect(about.filter((line) => (line.level as number) > 40 || JSON.stringify(line).includes('"stack"'))).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('answers 503 on /health/ready when the database does not answer', async () => {
    const other = await startTestApp();
    try {
      await other.app.get(DataSource).destroy();
      const ready = await request(other.http).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ statusCode: 503, error: 'service_unavailable', message: 'Not ready: database down.', details: null });
      expect((await request(other.http).get('/health/live')).status).toBe(200);
    } finally {
      await other.close().catch(() => undefined);
    }
  });

  it('counts 429s of the rate limit', async () => {
    const limited = await startTestApp({ config: { rateLimitPerMinute: 2 } });
    try {
      const client = await givenClient(limited);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await request(limited.http).get('/api/v1/Item').set('Authorization', client.bearer)).status);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
      const samples = await scrape(limited);
      expect(value(samples, 'http_rate_limited_total')).toBe(value(samples, 'http_requests_total', { status: '429' }));
      expect(value(samples, 'http_rate_limited_total')).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });

  it('serves no /metrics with METRICS_ENABLED=false', async () => {
    const off = await startTestApp({ config: { metricsEnabled: false } });
    try {
      expect((await request(off.http).get('/metrics')).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe(`the service process: SIGTERM and migrations as a job (${testDatabaseKind()})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('with MIGRATIONS_AT_START=false refuses an unmigrated database, naming the command; after `migration:run` it starts', async () => {
    const refused = await startService({ DATABASE_URL: db.url, MIGRATIONS_AT_START: 'false' }).then(
      (s) => s.kill('SIGKILL').then(() => 'started'),
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/migration\(s\) pending .*MIGRATIONS_AT_START=false: run `npm run migration:run` first/s);
    const migrate = spawn(process.execPath, ['dist/src/database/migrate.js'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url }, stdio: 'ignore' });
    expect(await new Promise((resolve) => migrate.once('exit', resolve))).toBe(0);
    const service = await startService({ DATABASE_URL: db.url, MIGRATIONS_AT_START: 'false' });
    expect((await fetch(`${service.url}/health/ready`)).status).toBe(200);
    expect(await service.kill('SIGTERM')).toEqual({ code: 0, signal: null });
  });

  it('on SIGTERM: not ready at once, still serving through SHUTDOWN_DELAY_MS, then exits 0 and refuses connections', async () => {
    const service = await startService({ DATABASE_URL: db.url, SHUTDOWN_DELAY_MS: '3000' });
    const bootstrap = /"clientId":"([^"]+)","clientSecret":"([^"]+)"/.exec(service.output());
    const token = bootstrap
      ? ((await (await fetch(`${service.url}/api/v1/Token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: bootstrap[1], client_secret: bootstrap[2] }) })).json()) as { access_token: string }).access_token
      : null;
    expect((await fetch(`${service.url}/health/ready`)).status).toBe(200);
    const exit = service.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const ready = await fetch(`${service.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ message: 'Not ready: instance draining.' });
    expect((await fetch(`${service.url}/health/live`)).status).toBe(200);
    if (token) expect((await fetch(`${service.url}/api/v1/Item`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(await exit).toEqual({ code: 0, signal: null });
    await expect(fetch(`${service.url}/health/live`)).rejects.toThrow();
  });
});
