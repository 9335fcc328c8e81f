import request from 'supertest';
import { SecurityId } from '../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient } from './support/auth.js';
import { ProbeModule } from './support/probe.module.js';
import { freePort } from './support/redis-process.js';

const LIMIT = 5;
// Set by .ci/run; without it (a machine with no Redis) the shared-counter test is not defined.
const REDIS_URL = process.env.TEST_REDIS_URL;

describe(`rate limit, in process (${testDatabaseKind()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { rateLimitPerMinute: LIMIT }, imports: [ProbeModule] });
  });
  afterAll(() => t.close());

  const read = (bearer: string) => request(t.http).get('/api/v1/__probe/secured/11').set('Authorization', bearer);

  it(`answers request ${LIMIT + 1} in a minute with the exact 429 body and Retry-After`, async () => {
    const client = await givenClient(t, { permissions: [SecurityId.ItemMasterList] });
    for (let i = 1; i <= LIMIT; i++) {
      const res = await read(client.bearer);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe(`"default";q=${LIMIT};w=60`);
      expect(res.headers.ratelimit).toMatch(new RegExp(`^"default";r=${LIMIT - i};t=\\d+$`));
    }
    const over = await read(client.bearer);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ message: `Rate limit exceeded: ${LIMIT} requests per minute.` });
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(over.headers['x-request-id']).toBeDefined();
  });

  it('gives two clients separate budgets', async () => {
    const a = await givenClient(t, { permissions: [SecurityId.ItemMasterList] });
    const b = await givenClient(t, { permissions: [SecurityId.ItemMasterList] });
    for (let i = 0; i < LIMIT; i++) expect((await read(a.bearer)).status).toBe(200);
    expect((await read(a.bearer)).status).toBe(429);
    expect((await read(b.bearer)).status).toBe(200);
  });

  it('counts requests without a valid token per address, POST /Token included', async () => {
    const fresh = await startTestApp({ config: { rateLimitPerMinute: LIMIT }, imports: [ProbeModule] });
    try {
      const badToken = () =>
        request(fresh.http).post('/api/v1/Token').type('form').send({ grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' });
      for (let i = 0; i < LIMIT - 1; i++) expect((await badToken()).status).toBe(401);
      const forged = await request(fresh.http).get('/api/v1/__probe/secured/11').set('Authorization', 'Bearer forged');
      expect(forged.status).toBe(401);
      const over = await badToken();
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ message: `Rate limit exceeded: ${LIMIT} requests per minute.` });
      expect((await request(fresh.http).get('/api/v1/__probe/secured/11')).status).toBe(429);
    } finally {
      await fresh.close();
    }
  });

  it('does not limit /health', async () => {
    for (let i = 0; i < LIMIT + 2; i++) expect((await request(t.http).get('/health')).status).toBe(200);
  });

  it('says nothing about Redis in /health when REDIS_URL is not set', async () => {
    expect((await request(t.http).get('/health')).body).toEqual({ status: 'ok', database: 'up' });
  });
});

describe(`rate limit with REDIS_URL set but Redis unreachable (${testDatabaseKind()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    // A port nobody listens on: the instance must start, serve and limit without Redis.
    t = await startTestApp({ config: { rateLimitPerMinute: LIMIT, redisUrl: `redis://127.0.0.1:${await freePort()}` }, imports: [ProbeModule] });
  });
  afterAll(() => t.close());

  it('serves, counts in process with the same limit, and reports redis down in /health (200)', async () => {
    const health = await request(t.http).get('/health');
    expect({ status: health.status, body: health.body }).toEqual({ status: 200, body: { status: 'ok', database: 'up', redis: 'down' } });
    const client = await givenClient(t, { permissions: [SecurityId.ItemMasterList] });
    const codes: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) {
      const started = Date.now();
      codes.push((await request(t.http).get('/api/v1/__probe/secured/11').set('Authorization', client.bearer)).status);
      expect(Date.now() - started).toBeLessThan(1000);
    }
    expect(codes).toEqual([...Array(LIMIT).fill(200), 429]);
  });
});

if (REDIS_URL) describe(`rate limit shared through Redis by two instances (${testDatabaseKind()})`, () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp({ config: { rateLimitPerMinute: LIMIT, redisUrl: REDIS_URL }, imports: [ProbeModule] });
    b = await startTestApp({ config: { rateLimitPerMinute: LIMIT, redisUrl: REDIS_URL }, imports: [ProbeModule], database: a.database });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it("counts one client's requests once across both instances", async () => {
    const admin = a.admin!;
    const tokenRes = await request(a.http).post('/api/v1/Token').auth(admin.clientId, admin.clientSecret).type('form').send({ grant_type: 'client_credentials' });
    expect(tokenRes.status).toBe(200);
    const bearer = `Bearer ${tokenRes.body.access_token as string}`;
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) {
      const instance = i % 2 === 0 ? a : b;
      statuses.push((await request(instance.http).get('/api/v1/__probe/secured/11').set('Authorization', bearer)).status);
    }
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
    const other = await request(b.http).get('/api/v1/__probe/secured/11').set('Authorization', bearer);
    expect(other.status).toBe(429);
  });

  it('reports Redis up in /health', async () => {
    expect((await request(a.http).get('/health')).body).toEqual({ status: 'ok', database: 'up', redis: 'up' });
  });

  it('keeps the counters of another deployment (another database) on the same Redis apart', async () => {
    const other = await startTestApp({ config: { rateLimitPerMinute: LIMIT, redisUrl: REDIS_URL }, imports: [ProbeModule] });
    try {
      const badToken = (instance: TestApp) =>
        request(instance.http).post('/api/v1/Token').type('form').send({ grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' });
      // (The first test's POST /Token already counted against this address.)
      for (let i = 0; i < LIMIT; i++) expect([401, 429]).toContain((await badToken(a)).status);
      // The address has spent its allowance in this deployment, on both of its instances…
      expect((await badToken(b)).status).toBe(429);
      // …and not in the other one.
      expect((await badToken(other)).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});
