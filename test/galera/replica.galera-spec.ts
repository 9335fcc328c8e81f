import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import type { TestDatabase } from '../app.factory.js';
import type { TestClient } from '../support/auth.js';
import { metricValue, parseMetrics } from '../support/metrics.js';
import { startReplicaPair, type ReplicaPair } from '../support/replica.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { givenWorkloadDatabase } from '../hostile/workload.js';

/**
 * Read replicas for real: a MariaDB primary and a binlog replica of it, two
 * `mariadbd` processes on loopback (`test/support/replica.ts`), and the built
 * service started with `DATABASE_URL` on the primary and `DATABASE_READ_URL`
 * on the replica as a user that may only SELECT. With the replica's SQL
 * thread stopped (a replica as far behind as one likes), each list read shows
 * whether it read the replica (stale) or the primary (fresh); a replica
 * killed and restarted shows the fallback and the return.
 */

const CATEGORY = 7;
/** Every list route, as a client calls it (pages large enough to hold everything this suite makes). */
const LISTS = [
  '/api/v1/Item?pageSize=250',
  '/api/v1/Item/All?pageSize=250',
  `/api/v1/Item?Category=${CATEGORY}`,
  '/api/v1/Inventory?pageSize=250',
  '/api/v1/Inventory/1?pageSize=250',
  '/api/v1/Inventory/StockLevels?pageSize=250',
  '/api/v1/Inventory/StockLevels/1?pageSize=250',
  '/api/v1/Inventory/Transactions?pageSize=250',
  '/api/v1/Events?limit=1000',
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('lists from a MariaDB binlog replica, everything else from the primary', () => {
  let pair: ReplicaPair;
  let dir: string;
  let db: TestDatabase;
  let database: string;
  let client: TestClient;
  let service: ServiceProcess;
  let made = 0;

  const env = () => ({ DATABASE_URL: pair.primaryUrl(database), DATABASE_READ_URL: pair.readerUrl(database) });
  const call = async (s: ServiceProcess, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; token?: string } = {}) => {
    const res = await fetch(`${s.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${init.token ?? client.token}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
  };
  /** A new item of CATEGORY with a Receive of 5 units in warehouse 1, through the service: it then shows in every list. */
  const change = async (s: ServiceProcess): Promise<{ shortID: string; partNo: number }> => {
    const shortID = `REPLICA-${process.pid}-${++made}`;
    const created = await call(s, '/api/v1/Item', { method: 'POST', body: { shortID, category: CATEGORY } });
    expect(created.status).toBe(201);
    const received = await call(s, '/api/v1/Inventory/Receive', { method: 'POST', body: { itemID: shortID, units: 5, wid: 1, reasonCode: 1 } });
    expect(received.status).toBe(201);
    return { shortID, partNo: created.body!.partNo as number };
  };
  /** Which lists show `shortID`, read with this consistency (every answer must be 200). */
  const showing = async (s: ServiceProcess, shortID: string, consistency?: string) => {
    const shown: Record<string, boolean> = {};
    for (const path of LISTS) {
      const res = await call(s, path, { headers: consistency ? { Consistency: consistency } : {} });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      shown[path] = res.text.includes(`"${shortID}"`) || res.text.includes(`\\"${shortID}\\"`);
    }
    return shown;
  };
  const all = (value: boolean) => Object.fromEntries(LISTS.map((p) => [p, value]));
  const listReads = async (s: ServiceProcess) => {
    const samples = parseMetrics(await (await fetch(`${s.url}/metrics`)).text());
    return Object.fromEntries(['replica', 'primary', 'fallback'].map((source) => [source, metricValue(samples, 'db_list_reads_total', { source }) ?? 0]));
  };
  const ready = async (s: ServiceProcess) => {
    const res = await fetch(`${s.url}/health/ready`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /**
   * Waits until `s` reads its lists from the replica again: with the SQL thread
   * stopped, a change made afterwards is missing from a default list only
   * when that list read the replica. Leaves the SQL thread running.
   */
  const readsReplicaAgain = async (s: ServiceProcess, timeoutMs = 20_000) => {
    await pair.stopSql();
    try {
      const { shortID } = await change(s);
      const until = Date.now() + timeoutMs;
      for (;;) {
        const res = await call(s, LISTS[0]);
        expect(res.status).toBe(200);
        if (!res.text.includes(`"${shortID}"`)) break;
        if (Date.now() > until) throw new Error(`lists still read the primary after ${timeoutMs} ms (ready: ${JSON.stringify(await ready(s))})`);
        await sleep(250);
      }
      expect(await showing(s, shortID)).toEqual(all(false));
      expect(await showing(s, shortID, 'strong')).toEqual(all(true));
    } finally {
      await pair.startSql();
    }
    await pair.caughtUp();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inventory-replica-'));
    const started = Date.now();
    pair = await startReplicaPair(dir);
    const formed = Date.now();
    // The database, its migrations and a client: made in-process on the primary; the replica gets them by replication.
    process.env.TEST_MYSQL_URL = pair.primaryUrl('test');
    ({ db, clients: [client] } = await givenWorkloadDatabase([], [1]));
    database = new URL(db.url).pathname.slice(1);
    await pair.caughtUp();
    service = await startService(env());
    // The replica is connected when first needed: a readiness probe, as a load balancer's, brings it up.
    for (let i = 0; (await ready(service)).body.replica !== 'up'; i++) {
      if (i > 100) throw new Error('the replica never came up');
      await sleep(100);
    }
    process.stdout.write(`replica: primary and replica up in ${formed - started} ms; database and service ready ${Date.now() - formed} ms later\n`);
  });

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await pair?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads every list from the replica, which shows what the primary committed once it has applied it', async () => {
    const { shortID } = await change(service);
    await pair.caughtUp();
    const before = await listReads(service);
    expect(await showing(service, shortID)).toEqual(all(true));
    const after = await listReads(service);
    expect({ replica: after.replica - before.replica, primary: after.primary - before.primary, fallback: after.fallback - before.fallback }).toEqual({
      replica: LISTS.length,
      primary: 0,
      fallback: 0,
    });
    expect(await ready(service)).toEqual({ status: 200, body: { status: 'ok', database: 'up', replica: 'up' } });
  });

  it('serves stale lists from a lagging replica by default and fresh ones with Consistency: strong; tokens, point reads and writes stay on the primary', async () => {
    await pair.stopSql();
    try {
      // A token issued now, and the change made with it: both on the primary only.
      const token = await fetch(`${service.url}/api/v1/Token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
      }).then((r) => r.json() as Promise<{ access_token: string }>);
      const shortID = `REPLICA-${process.pid}-${++made}`;
      const created = await call(service, '/api/v1/Item', { method: 'POST', body: { shortID, category: CATEGORY }, token: token.access_token });
      expect(created.status).toBe(201);
      expect((await call(service, '/api/v1/Inventory/Receive', { method: 'POST', body: { itemID: shortID, units: 5, wid: 1, reasonCode: 1 }, token: token.access_token })).status).toBe(201);
      const issued = await call(service, '/api/v1/Inventory/Issue', { method: 'POST', body: { itemID: shortID, units: 2, wid: 1, reasonCode: 2 }, token: token.access_token });
      expect(issued.status).toBe(200);
      const read = await call(service, `/api/v1/Item/${created.body!.partNo as number}`, { token: token.access_token });
      expect({ status: read.status, shortID: read.body?.shortID }).toEqual({ status: 200, shortID });
      expect((await call(service, `/api/v1/Item?key=${shortID}`, { token: token.access_token })).status).toBe(200);

      expect(await showing(service, shortID)).toEqual(all(false));
      expect(await showing(service, shortID, 'strong')).toEqual(all(true));
      expect(await showing(service, shortID, 'STRONG')).toEqual(all(true));
      expect(await showing(service, shortID, 'eventual')).toEqual(all(false));
      // The stock the primary holds, and the replica's older figure.
      const strong = await call(service, '/api/v1/Inventory/StockLevels/1?pageSize=250', { headers: { Consistency: 'strong' } });
      const level = (strong.body!.value as Array<{ shortID: string; inStock: number }>).find((l) => l.shortID === shortID);
      expect(level?.inStock).toBe(3);

      await pair.startSql();
      await pair.caughtUp();
      expect(await showing(service, shortID)).toEqual(all(true));
    } finally {
      await pair.startSql();
    }
  });

  it('refuses a Consistency other than strong or eventual on every list', async () => {
    for (const path of LISTS) {
      const res = await call(service, path, { headers: { Consistency: 'strongest' } });
      expect({ path, status: res.status, error: res.body?.error, details: res.body?.details }).toEqual({
        path,
        status: 400,
        error: 'validation_error',
        details: { Consistency: ['Consistency must be strong or eventual'] },
      });
    }
  });

  it('answers every list from the primary while the replica is dead, reports it down, and reads the replica again once it is back', async () => {
    await pair.killReplica();
    const before = await listReads(service);
    const { shortID } = await change(service);
    expect(await showing(service, shortID)).toEqual(all(true));
    const after = await listReads(service);
    expect(after.fallback - before.fallback).toBeGreaterThanOrEqual(LISTS.length);
    expect(after.replica - before.replica).toBe(0);
    expect(await ready(service)).toEqual({ status: 200, body: { status: 'ok', database: 'up', replica: 'down' } });
    expect((await fetch(`${service.url}/health`)).status).toBe(200);

    await pair.restartReplica();
    await pair.caughtUp();
    await readsReplicaAgain(service);
    expect(await ready(service)).toEqual({ status: 200, body: { status: 'ok', database: 'up', replica: 'up' } });
  });

  it('answers a list from the primary when the replica hangs (SIGSTOP), within the replica read timeout', async () => {
    const { shortID } = await change(service);
    await pair.caughtUp();
    pair.pauseReplica();
    try {
      const started = Date.now();
      const res = await call(service, LISTS[3]);
      const took = Date.now() - started;
      expect(res.status).toBe(200);
      expect(res.text).toContain(`"${shortID}"`);
      // REPLICA_READ_TIMEOUT_MS (5 s), then the primary's answer.
      expect(took).toBeGreaterThanOrEqual(4_500);
      expect(took).toBeLessThan(10_000);
      // Resting: the next list does not wait for the replica.
      const next = Date.now();
      expect((await call(service, LISTS[0])).status).toBe(200);
      expect(Date.now() - next).toBeLessThan(2_000);
      expect(await ready(service)).toEqual({ status: 200, body: { status: 'ok', database: 'up', replica: 'down' } });
    } finally {
      pair.resumeReplica();
    }
    await pair.caughtUp();
    await readsReplicaAgain(service);
  });

  it('starts while the replica is down, serves lists from the primary, and uses the replica once it answers', async () => {
    await pair.killReplica();
    const second = await startService(env());
    try {
      const { shortID } = await change(second);
      expect(await showing(second, shortID)).toEqual(all(true));
      expect((await ready(second)).body.replica).toBe('down');
      await pair.restartReplica();
      await pair.caughtUp();
      await readsReplicaAgain(second);
    } finally {
      await second.kill('SIGTERM');
    }
  });

  it('never wrote to the replica: it holds exactly the primary data, and only the primary GTIDs', async () => {
    await pair.caughtUp();
    const figures = async (url: string) => {
      const conn = await mysql.createConnection(url);
      try {
        const [rows] = await conn.query(
          `SELECT (SELECT COUNT(*) FROM item) AS items, (SELECT COUNT(*) FROM lot) AS lots, (SELECT COUNT(*) FROM ledger_entry) AS ledger,
                  (SELECT COALESCE(SUM(inStock), 0) FROM stock_level) AS stock, (SELECT COUNT(*) FROM event) AS events, (SELECT MAX(seq) FROM event) AS lastSeq,
                  (SELECT COUNT(*) FROM access_token) AS tokens`,
        );
        return (rows as Array<Record<string, unknown>>)[0];
      } finally {
        await conn.end();
      }
    };
    const primary = await figures(pair.primaryUrl(database));
    expect(Number(primary.items)).toBe(made);
    expect(await figures(pair.readerUrl(database))).toEqual(primary);
    // Domain 0, server 1 only: every transaction the replica holds came from the primary.
    expect(await pair.replicaGtids()).toMatch(/^0-1-\d+$/);
  });
});
