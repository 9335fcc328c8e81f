import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { DataSource } from 'typeorm';
import { caseKey } from '../../src/database/case-key.js';
import { ENTITIES } from '../../src/entities.js';
import { dataSourceOptions } from '../../src/database/data-source.js';
import { testDatabaseKind, type TestDatabase } from '../app.factory.js';
import type { TestClient } from '../support/auth.js';
import { type BulkItem, insertItems, mixedCase } from '../support/bulk-items.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { givenWorkloadDatabase } from './workload.js';

/**
 * One read-only call must not bring the service down (DECISIONS "Items"):
 * the built service (192 MB heap, as production starts it) answers 8
 * concurrent `GET /Item?Category=` of 100,000 items each, whole and in order,
 * plus a client that never reads its answer, while `/health`, asked every
 * 100 ms, answers within 1 s and the process stays within 250 MB of RSS.
 */
const ITEMS = 100_000;
const READERS = 8;
const CATEGORY = 7;
const MAX_RSS_MB = 250;
const MAX_HEALTH_MS = 1_000;

describe(`a category of ${ITEMS.toLocaleString('en')} items, ${READERS} readers at once, on ${testDatabaseKind()}`, () => {
  let db: TestDatabase;
  let client: TestClient;
  let service: ServiceProcess | undefined;
  /** The category's active items' case keys, in the order the list must have. */
  let expectedKeys: string[];

  beforeAll(async () => {
    ({ db, clients: [client] } = await givenWorkloadDatabase([], [1]));
    // Inserted in shuffled order with random-case shortIDs: neither partNo nor the stored case gives the order.
    const order = Array.from({ length: ITEMS }, (_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const items: BulkItem[] = order.map((n) => ({ shortID: mixedCase(`part-${String(n).padStart(6, '0')}`), category: CATEGORY, description: `Stream test part ${n}` }));
    // Not in the list: discontinued items of the category and another category's items.
    items.push(...Array.from({ length: 500 }, (_, n) => ({ shortID: `PART-${n}-gone`, category: CATEGORY, discontinued: true })));
    items.push(...Array.from({ length: 500 }, (_, n) => ({ shortID: `part-${n}-other`, category: CATEGORY + 1 })));
    // With the entities: the rows go through Item's column transformers (the data source of a migration or raw query needs none).
    const dataSource = new DataSource(dataSourceOptions(db.target, ENTITIES));
    await dataSource.initialize();
    const started = Date.now();
    try {
      await insertItems(dataSource, items);
    } finally {
      await dataSource.destroy();
    }
    process.stdout.write(`category stream (${testDatabaseKind()}): ${items.length} items seeded in ${Date.now() - started} ms\n`);
    expectedKeys = Array.from({ length: ITEMS }, (_, n) => `part-${String(n).padStart(6, '0')}`);
  });

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await db.drop();
  });

  it(`answers every list whole and in order, /health within ${MAX_HEALTH_MS} ms throughout, within ${MAX_RSS_MB} MB`, async () => {
    service = await startService({ DATABASE_URL: db.url });
    const { url } = service;
    const pid = service.child.pid!;
    const token = await tokenFrom(url, client);
    const path = `/api/v1/Item?Category=${CATEGORY}`;

    // A client that asks and never reads: its answer must wait, not pile up in the service.
    const stalled = await stalledReader(service.port, path, token);

    const poller = healthPoller(url);
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: READERS }, () => readWhole(`${url}${path}`, token)));
    const seconds = (Date.now() - started) / 1000;
    const health = await poller.stop();
    stalled.destroy();
    const { child } = service;
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the service died (${child.exitCode ?? child.signalCode}); answers ${JSON.stringify(answers.map((a) => a.status))}; its output ends: ${service.output().slice(-1500)}`);
    }
    const peakMb = Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
    const slowest = Math.max(...health.map((h) => h.ms));
    process.stdout.write(
      `category stream (${testDatabaseKind()}): ${READERS} × ${ITEMS} items in ${seconds.toFixed(1)} s; peak RSS ${peakMb} MB; ` +
        `/health asked ${health.length} times, slowest ${slowest} ms\n`,
    );

    expect(answers.map((a) => [a.status, a.type])).toEqual(Array(READERS).fill([200, 'application/json; charset=utf-8']));
    for (const answer of answers) {
      const list = JSON.parse(Buffer.concat(answer.body).toString()) as Array<{ shortID: string; category: number; discontinued: boolean }>;
      expect(list).toHaveLength(ITEMS);
      const outOfPlace = list.findIndex((item, i) => caseKey(item.shortID) !== expectedKeys[i] || item.category !== CATEGORY || item.discontinued);
      expect(outOfPlace).toBe(-1);
    }
    expect(health.length).toBeGreaterThanOrEqual(5);
    expect(health.filter((h) => h.status !== 200 || h.ms > MAX_HEALTH_MS)).toEqual([]);
    expect(peakMb).toBeLessThanOrEqual(MAX_RSS_MB);
    // Still serving, and the stalled client's list is abandoned without harm. On a connection of its
    // own: the poller's kept-alive one has been idle through the checks above, and the service may
    // close it (keep-alive timeout) just as a request goes out on it.
    const status = await new Promise<number | undefined>((resolve, reject) => get(`${url}/health`, { agent: false }, (res) => (res.resume(), resolve(res.statusCode))).on('error', reject));
    expect(status).toBe(200);
  });
});

/**
 * `/health` asked every 100 ms from a process of its own until `stop()`: the
 * times are the service's, not this test process's, whose event loop is busy
 * taking in 8 lists of 17 MB (and whose heap has grown over the suite's
 * earlier specs, so that its collections pause it for hundreds of ms).
 */
function healthPoller(url: string): { stop(): Promise<Array<{ status: number | string; ms: number }>> } {
  const script = `
    let on = true;
    process.on('SIGTERM', () => { on = false; });
    (async () => {
      while (on) {
        const sent = Date.now();
        const status = await fetch(process.env.HEALTH_URL, { signal: AbortSignal.timeout(15000) }).then((r) => r.status, (e) => e.name);
        process.stdout.write(JSON.stringify({ status, ms: Date.now() - sent }) + '\\n');
        await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - sent))));
      }
      process.exit(0);
    })();`;
  const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, HEALTH_URL: `${url}/health` }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return out
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { status: number | string; ms: number });
    },
  };
}

/** POST /Token on the running service. */
async function tokenFrom(url: string, client: TestClient): Promise<string> {
  const res = await fetch(`${url}/api/v1/Token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * A full GET, its body kept as the chunks that came: decoding and parsing
 * 8 × 30 MB now would stall this process and lengthen the /health timings.
 */
async function readWhole(url: string, token: string): Promise<{ status: number | string; type: string | null; body: Buffer[] }> {
  const body: Buffer[] = [];
  try {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    for await (const chunk of res.body!) body.push(Buffer.from(chunk as Uint8Array));
    return { status: res.status, type: res.headers.get('content-type'), body };
  } catch (error) {
    return { status: `${(error as Error).message} ${String((error as Error).cause ?? '')}`, type: null, body };
  }
}

/** Sends a GET on a raw socket and never reads the answer. */
async function stalledReader(port: number, path: string, token: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  return socket;
}
