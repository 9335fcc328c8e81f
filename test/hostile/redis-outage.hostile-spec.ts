import { Redis } from 'ioredis';
import type { TestDatabase } from '../app.factory.js';
import type { TestClient } from '../support/auth.js';
import { startRedisServer, type RedisProcess } from '../support/redis-process.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { givenWorkloadDatabase, sleep } from './workload.js';

/**
 * Redis is never a single point of failure (DECISIONS "Rate limit"). Two
 * instances of the built service share one MariaDB database and a
 * redis-server of this test's own, which is killed, restarted and paused
 * (SIGSTOP) under them. Whatever Redis does, every request answers within a
 * second and never with a 5xx; /health reports Redis down within 5 s and up
 * again when it returns; while it is down each instance limits in process,
 * and shared counting resumes by itself. A second deployment (another
 * database) on the same Redis keeps counters of its own.
 */
const LIMIT = 8;
/** DECISIONS allows 1.5 s; a request that waited on Redis at all would take far longer. */
const MAX_MS = 1000;
const UNAVAILABLE = 'Redis is unavailable';

interface Answer {
  status: number;
  ms: number;
  body: unknown;
}

/** One request; a hang or a refused connection is status 0, never a thrown error. */
async function call(url: string, bearer?: string, init: RequestInit = {}): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, headers: { ...(bearer ? { Authorization: bearer } : {}), ...init.headers }, signal: AbortSignal.timeout(5_000) });
    const text = await res.text();
    return { status: res.status, ms: performance.now() - started, body: text ? JSON.parse(text) : null };
  } catch {
    return { status: 0, ms: performance.now() - started, body: null };
  }
}

describe('Redis killed, paused and restarted under two instances (MariaDB)', () => {
  let db: TestDatabase;
  let other: TestDatabase;
  let clients: TestClient[];
  let redis: RedisProcess;
  const services: ServiceProcess[] = [];
  /** Every answer of the whole test, for the no-5xx and latency checks. */
  const answers: Array<Answer & { what: string }> = [];
  /** Per service, when it logged the Redis warning. */
  const warnings = new Map<ServiceProcess, number[]>();

  const start = async (database: TestDatabase) => {
    const service = await startService({ DATABASE_URL: database.url, REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    warnings.set(service, service.output().includes(UNAVAILABLE) ? [Date.now()] : []);
    service.child.stdout!.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.includes(UNAVAILABLE)) warnings.get(service)!.push(Date.now());
    });
    services.push(service);
    return service;
  };
  const read = async (service: ServiceProcess, client: TestClient, what: string) => {
    const answer = await call(`${service.url}/api/v1/Item?pageSize=1`, client.bearer);
    answers.push({ ...answer, what });
    return answer;
  };
  const health = async (service: ServiceProcess) => {
    const answer = await call(`${service.url}/health`);
    answers.push({ ...answer, what: 'health' });
    return answer;
  };
  /** Polls /health until it reports `redis` as wanted; returns how long that took. */
  const healthSays = async (service: ServiceProcess, wanted: 'up' | 'down', since: number) => {
    for (;;) {
      const { status, body } = await health(service);
      if (status === 200 && (body as { redis?: string }).redis === wanted) return Date.now() - since;
      if (Date.now() - since > 10_000) return Infinity;
      await sleep(100);
    }
  };
  /** `n` reads of one client, round-robin over the services, in order. */
  const reads = async (client: TestClient, over: ServiceProcess[], n: number, what: string) => {
    const codes: number[] = [];
    for (let i = 0; i < n; i++) codes.push((await read(over[i % over.length], client, what)).status);
    return codes;
  };
  const expectShared = (codes: number[]) => expect(codes).toEqual([...Array(LIMIT).fill(200), ...Array(codes.length - LIMIT).fill(429)]);
  /** With Redis down each instance counts alone: a full allowance on each. */
  const expectPerInstance = async (client: TestClient, over: ServiceProcess[], what: string) => {
    for (const service of over) {
      const codes = [];
      for (let i = 0; i < LIMIT + 2; i++) codes.push((await read(service, client, what)).status);
      expect(codes).toEqual([...Array(LIMIT).fill(200), 429, 429]);
    }
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    ({ db, clients } = await givenWorkloadDatabase([], [1], 6));
    ({ db: other } = await givenWorkloadDatabase([], [1], 1));
    await start(db);
    await start(db);
  });

  afterAll(async () => {
    // Resumed first: a service that waits on a paused Redis while shutting down would never exit.
    await redis?.signal('SIGCONT');
    await Promise.all(services.map((s) => s.kill('SIGTERM')));
    await redis?.stop();
    await db?.drop();
    await other?.drop();
  });

  it('shares one client\'s allowance between the instances while Redis is up', async () => {
    const [a, b] = services;
    for (const s of [a, b]) expect((await health(s)).body).toEqual({ status: 'ok', database: 'up', redis: 'up' });
    expectShared(await reads(clients[0], [a, b], LIMIT + 4, 'redis up'));
    // The counter is in Redis, under the deployment's prefix (derived from the database).
    const inspect = new Redis(redis.url);
    const keys = await inspect.keys('*');
    inspect.disconnect();
    expect(keys).toContain(`inventory:mysql:127.0.0.1:3306/${new URL(db.url).pathname.slice(1)}:rl:default:client:${clients[0].clientId}`);
  });

  it('keeps the counters of another deployment on the same Redis apart', async () => {
    const [a, b] = services;
    const d = await start(other);
    const badToken = (s: ServiceProcess) =>
      call(`${s.url}/api/v1/Token`, undefined, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=x&client_secret=y' });
    const codes = [];
    for (let i = 0; i < LIMIT + 1; i++) codes.push((await badToken(i % 2 ? b : a)).status);
    expect(codes).toEqual([...Array(LIMIT).fill(401), 429]); // this address's allowance, spent across both instances
    expect((await badToken(d)).status).toBe(401); // not spent in the other deployment
    await d.kill('SIGTERM');
    services.splice(services.indexOf(d), 1);
  });

  it('serves on when Redis is killed: no 5xx, no wait, /health says down within 5 s, each instance limits alone', async () => {
    const [a, b] = services;
    await redis.signal('SIGKILL');
    const killed = Date.now();
    // Straight after the kill, before anything noticed it.
    for (let i = 0; i < 6; i++) await read(services[i % 2], clients[1], 'just killed');
    for (const s of [a, b]) expect(await healthSays(s, 'down', killed)).toBeLessThan(5_000);
    // POST /Token too.
    const token = await call(`${a.url}/api/v1/Token`, undefined, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${clients[2].clientId}&client_secret=${clients[2].clientSecret}`,
    });
    answers.push({ ...token, what: 'token, redis killed' });
    expect(token.status).toBe(200);
    await expectPerInstance(clients[2], [a, b], 'redis killed');
  });

  it('starts an instance while Redis is down, which serves', async () => {
    const c = await start(db);
    expect((await health(c)).body).toEqual({ status: 'ok', database: 'up', redis: 'down' });
    expect((await read(c, clients[3], 'started without redis')).status).toBe(200);
  });

  it('shares the count again, by itself, once Redis is back on the same port', async () => {
    await redis.restart();
    const back = Date.now();
    for (const s of services) expect(await healthSays(s, 'up', back)).toBeLessThan(5_000);
    expectShared(await reads(clients[3], services, LIMIT + 4, 'redis back'));
  });

  it('does not hang when Redis is paused (SIGSTOP), and shares the count again when it resumes', async () => {
    await redis.signal('SIGSTOP');
    const paused = Date.now();
    try {
      // A burst straight after the pause: each request waits at most the command timeout.
      const burst = await Promise.all(services.flatMap((s) => Array.from({ length: 5 }, () => read(s, clients[4], 'just paused'))));
      expect(burst.map((x) => x.status).filter((x) => x !== 200 && x !== 429)).toEqual([]);
      for (const s of services) expect(await healthSays(s, 'down', paused)).toBeLessThan(5_000);
      await expectPerInstance(clients[5], services, 'redis paused');
    } finally {
      await redis.signal('SIGCONT');
    }
    const resumed = Date.now();
    for (const s of services) expect(await healthSays(s, 'up', resumed)).toBeLessThan(5_000);
  });

  it('answered every request within a second and never with a 5xx, and warned at most once a minute', () => {
    const slow = answers.filter((x) => x.ms >= MAX_MS).map((x) => `${x.what}: ${x.status} in ${Math.round(x.ms)} ms`);
    const failed = answers.filter((x) => x.status === 0 || x.status >= 500).map((x) => `${x.what}: ${x.status}`);
    process.stdout.write(`redis-outage: ${answers.length} requests, slowest ${Math.round(Math.max(...answers.map((x) => x.ms)))} ms\n`);
    expect(slow).toEqual([]);
    expect(failed).toEqual([]);
    for (const service of services) {
      const times = warnings.get(service)!;
      expect(times.length).toBeGreaterThanOrEqual(1);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(59_000);
      // Nothing about Redis (or anything else) at error level.
      expect(service.output()).not.toMatch(/"level":(50|60)\b/);
    }
  });
});
