import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { parseDatabaseUrl } from '../../src/config/config.js';
import type { TestDatabase } from '../app.factory.js';
import type { TestClient } from '../support/auth.js';
import { startGaleraCluster, type GaleraCluster } from '../support/galera.js';
import { metricValue, parseMetrics } from '../support/metrics.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { type Answer, expectExact, finalAnswer, givenWorkloadDatabase, type LoggedRequest, randomRequest, retryable, send, settle, sleep, statuses, type Target, verify } from '../hostile/workload.js';

/**
 * The service on a real three-node MariaDB Galera cluster on loopback: three
 * instances of the built service, each on a node of its own, as a
 * multi-master deployment runs them. Cross-node contention surfaces as
 * certification failures (1213 at COMMIT), which the service must absorb; the
 * nodes must end equal and exactly what the clients were told; Allocates on
 * one node racing plain Issues of the item on another, and Allocates over all
 * three, never take more than is available on any node; allocations falling
 * due while all three instances look every second expire once each; and a node
 * killed mid-burst must cost its own instance only (503, not ready) until it
 * rejoins, with nothing lost or done twice.
 */
const NODES = 3;
const BURST = 300;
const WIDS = [1, 2];
const PLENTY = 'GALERA-PLENTY';
const SCARCE = 'GALERA-SCARCE';
const KILL_ITEMS = ['GALERA-KILL-A', 'GALERA-KILL-B', 'GALERA-KILL-C'];
/** Allocated on one node while another issues it; allocated over all three. */
const CROSSED = 'GALERA-CROSSED';
const ALLOCATED = 'GALERA-ALLOCATED';
/** Allocated to fall due while every instance looks for due allocations every second. */
const EXPIRING = 'GALERA-EXPIRING';
const INSUFFICIENT = /^Insufficient stock/;
const CONTENTION = 'The request met concurrent changes and could not be completed; retry it.';

describe('three instances on a three-node MariaDB Galera cluster', () => {
  let cluster: GaleraCluster;
  let dir: string;
  let db: TestDatabase;
  let database: string;
  let client: TestClient;
  let services: ServiceProcess[] = [];
  /** Every write sent to the database since it was created: the ledger of each node must be exactly this. */
  const log: LoggedRequest[] = [];
  let seq = 0;

  const nodeUrl = (i: number) => cluster.url(i, database);
  const target = (i: number): Target => ({ url: services[i].url, token: client.token });
  const entry = (op: 'Receive' | 'Issue' | 'Allocate', itemID: string, units: number, wid = 1): LoggedRequest => {
    const key = `galera-${++seq}`;
    // An allocation's reference is its request's key: the check of the documents finds it by that.
    const body = op === 'Allocate' ? { itemID, units, wid, reference: key } : { itemID, units, wid, reasonCode: op === 'Receive' ? 1 : 2 };
    const e: LoggedRequest = { key, op, body, answers: [], lost: 0 };
    log.push(e);
    return e;
  };
  /** Sends a write to instance `i` until its answer is final (again after a contention 409 or no answer, as a client would). */
  const settleAt = (i: number, e: LoggedRequest) => settle(e, () => target(i), () => 200);

  /** Stock of every item × warehouse as node `i` holds it, in units. */
  const stockOn = async (i: number): Promise<Record<string, number>> => {
    const conn = await mysql.createConnection(nodeUrl(i));
    try {
      const [rows] = await conn.query('SELECT i.shortID AS shortID, s.wID AS wID, s.inStock AS inStock FROM stock_level s JOIN item i ON i.partNo = s.partNo ORDER BY i.shortID, s.wID');
      return Object.fromEntries((rows as Array<{ shortID: string; wID: number; inStock: string }>).map((r) => [`${r.shortID}@${r.wID}`, Number(r.inStock)]));
    } finally {
      await conn.end();
    }
  };

  /** Once every node has applied everything: each node's ledger and stock are exactly the log's successful answers, and all nodes agree. */
  const expectNodesExact = async () => {
    await cluster.settled();
    const stocks = [];
    for (let i = 0; i < NODES; i++) {
      expectExact(await verify(parseDatabaseUrl(nodeUrl(i)), log));
      stocks.push(await stockOn(i));
    }
    expect(stocks[1]).toEqual(stocks[0]);
    expect(stocks[2]).toEqual(stocks[0]);
    return stocks[0];
  };

  /** 300 one-unit Issues of `itemID` sent at once, round-robin over the instances, once each (no client retry). */
  const issueBurst = async (itemID: string) => {
    const entries = Array.from({ length: BURST }, () => entry('Issue', itemID, 1));
    const answers = await Promise.all(entries.map(async (e, n) => {
      const answer = await send(target(n % NODES), e);
      if (answer) e.answers.push(answer);
      return answer;
    }));
    const kinds = answers.map(kind);
    const tally: Record<string, number> = {};
    for (const k of kinds) tally[k] = (tally[k] ?? 0) + 1;
    return { tally, succeeded: kinds.filter((k) => k === '200').length };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inventory-galera-'));
    const started = Date.now();
    cluster = await startGaleraCluster(dir, NODES);
    const formed = Date.now();
    // The test database, its migrations, a client and the items: made in-process on node 1 (the others get them by replication).
    process.env.TEST_MYSQL_URL = cluster.url(0, 'test');
    ({ db, clients: [client] } = await givenWorkloadDatabase([PLENTY, SCARCE, ...KILL_ITEMS, CROSSED, ALLOCATED, EXPIRING], WIDS));
    database = new URL(db.url).pathname.slice(1);
    // No retry setting: on a Galera node the service takes the budget the deployment guide gives (15 s) by itself.
    // GALERA_TX_RETRY_BUDGET_MS sets one, to try others.
    const budget = process.env.GALERA_TX_RETRY_BUDGET_MS;
    // Every instance looks for due allocations every second: the expiry's race across nodes below.
    services = await Promise.all(
      cluster.nodes.map((_, i) => startService({ DATABASE_URL: nodeUrl(i), ALLOCATION_EXPIRY_INTERVAL_SECONDS: '1', ...(budget ? { TX_RETRY_BUDGET_MS: budget } : {}) })),
    );
    process.stdout.write(`galera: cluster of ${NODES} formed in ${formed - started} ms; database and ${NODES} instances ready ${Date.now() - formed} ms later\n`);
  });

  afterAll(async () => {
    await Promise.all(services.map((s) => s.kill('SIGKILL')));
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('takes the Galera retry budget by itself on every node, and logs it', () => {
    if (process.env.GALERA_TX_RETRY_BUDGET_MS) return;
    for (const service of services) {
      const line = service.output().split('\n').find((l) => l.includes('"transaction retry budget"'));
      expect(line && JSON.parse(line)).toMatchObject({ budgetMs: 15000, source: 'Galera default' });
    }
  });

  it('receives the stock on one node and every node holds it', async () => {
    for (const [itemID, units] of [[PLENTY, 1000], [SCARCE, 200]] as const) {
      const e = entry('Receive', itemID, units);
      const answer = await send(target(0), e);
      if (answer) e.answers.push(answer);
      expect(answer?.status).toBe(201);
    }
    const stock = await expectNodesExact();
    expect(stock).toMatchObject({ [`${PLENTY}@1`]: 1000, [`${SCARCE}@1`]: 200 });
  });

  describe('300 concurrent 1-unit Issues of an item holding 1,000 units, over three instances', () => {
    let burst: Awaited<ReturnType<typeof issueBurst>>;
    beforeAll(async () => {
      const started = Date.now();
      burst = await issueBurst(PLENTY);
      process.stdout.write(`galera: 300 Issues of 1,000 units: ${JSON.stringify(burst.tally)} in ${Date.now() - started} ms\n`);
    });

    it('answers each one 200 or 409, never a 5xx', () => {
      expect(Object.keys(burst.tally).filter((k) => k !== '200' && !k.startsWith('409'))).toEqual([]);
    });

    it('leaves every node with 1,000 minus the Issues that succeeded, exactly as the ledger says', async () => {
      const stock = await expectNodesExact();
      expect(stock[`${PLENTY}@1`]).toBe(1000 - burst.succeeded);
    });

    it('serves all 300', () => {
      expect(burst.tally).toEqual({ 200: BURST });
    });
  });

  describe('300 concurrent 1-unit Issues of an item holding 200 units, over three instances', () => {
    let burst: Awaited<ReturnType<typeof issueBurst>>;
    beforeAll(async () => {
      const started = Date.now();
      burst = await issueBurst(SCARCE);
      process.stdout.write(`galera: 300 Issues of 200 units: ${JSON.stringify(burst.tally)} in ${Date.now() - started} ms\n`);
    });

    it('answers each one 200 or 409, never a 5xx', () => {
      expect(Object.keys(burst.tally).filter((k) => k !== '200' && !k.startsWith('409'))).toEqual([]);
    });

    it('leaves every node with 200 minus the Issues that succeeded, never below zero, exactly as the ledger says', async () => {
      const stock = await expectNodesExact();
      expect(stock[`${SCARCE}@1`]).toBe(200 - burst.succeeded);
    });

    it('serves exactly 200 and refuses the other 100 for insufficient stock, nothing else', () => {
      expect(burst.tally).toEqual({ 200: 200, '409 insufficient': 100 });
    });
  });

  describe('stock documents across nodes', () => {
    /** The figures of an item's stock_level row in warehouse 1 as node `i` holds them, in units, and its open allocations. */
    const figuresOn = async (i: number, itemID: string) => {
      const conn = await mysql.createConnection(nodeUrl(i));
      try {
        const [rows] = await conn.query(
          'SELECT s.inStock AS inStock, s.onHold AS onHold, s.committed AS committed, s.packed AS packed,' +
            " (SELECT COUNT(*) FROM allocation a WHERE a.partNo = s.partNo AND a.wID = s.wID AND a.state = 'open') AS openAllocations" +
            ' FROM stock_level s JOIN item i ON i.partNo = s.partNo WHERE i.shortID = ? AND s.wID = 1',
          [itemID],
        );
        const [row] = rows as Array<Record<string, string | number>>;
        const level = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
        return { ...level, available: level.inStock - level.onHold - level.committed - level.packed };
      } finally {
        await conn.end();
      }
    };
    const figuresOnEveryNode = async (itemID: string) => {
      await cluster.settled();
      const figures = [];
      for (let i = 0; i < NODES; i++) figures.push(await figuresOn(i, itemID));
      expect(figures[1]).toEqual(figures[0]);
      expect(figures[2]).toEqual(figures[0]);
      return figures[0];
    };
    const final = (e: LoggedRequest) => kind(finalAnswer(e));
    /** Transactions the instances ran again after a deadlock, which on Galera includes a certification failure at COMMIT. */
    const certificationRetries = async () => {
      let n = 0;
      for (const service of services) n += metricValue(parseMetrics(await (await fetch(`${service.url}/metrics`)).text()), 'db_transaction_retries_total', { cause: 'deadlock' }) ?? 0;
      return n;
    };

    it('Allocates sent to node 1 racing plain Issues sent to node 2, on one item: never oversold on any node; committed, inStock and the ledger exact', async () => {
      const stock = entry('Receive', CROSSED, 100);
      await settleAt(0, stock);
      expect(final(stock)).toBe('201');
      const allocates = Array.from({ length: 60 }, () => entry('Allocate', CROSSED, 2));
      const issues = Array.from({ length: 60 }, () => entry('Issue', CROSSED, 2));
      const retriesBefore = await certificationRetries();
      const started = Date.now();
      await Promise.all(allocates.flatMap((e, n) => [settleAt(0, e), settleAt(1, issues[n])]));
      const retried = (await certificationRetries()) - retriesBefore;
      const tally = statusesOf([...allocates, ...issues].map((e) => finalAnswer(e)!));
      const allocated = allocates.filter((e) => final(e) === '201').length;
      const issued = issues.filter((e) => final(e) === '200').length;
      process.stdout.write(`galera: 60 Allocates on node 1 against 60 Issues on node 2, 2 units each of 100: ${allocated} allocated, ${issued} issued, ${JSON.stringify(tally)} in ${Date.now() - started} ms, ${retried} transactions run again\n`);
      expect(Object.keys(tally).filter((k) => !['201', '200', '409 insufficient'].includes(k))).toEqual([]);
      expect(2 * (allocated + issued)).toBeLessThanOrEqual(100);
      const figures = await figuresOnEveryNode(CROSSED);
      expect(figures).toEqual({ inStock: 100 - 2 * issued, onHold: 0, committed: 2 * allocated, packed: 0, openAllocations: allocated, available: 100 - 2 * (issued + allocated) });
      // 240 units asked of 100: what is left is less than one request's 2 units, and never below 0.
      expect(figures.available).toBeGreaterThanOrEqual(0);
      expect(figures.available).toBeLessThan(2);
      await expectNodesExact();
    });

    it('60 concurrent Allocates of 1 on 40 available, over the three instances: exactly 40, on every node', async () => {
      const stock = entry('Receive', ALLOCATED, 40);
      await settleAt(0, stock);
      expect(final(stock)).toBe('201');
      const allocates = Array.from({ length: 60 }, () => entry('Allocate', ALLOCATED, 1));
      const retriesBefore = await certificationRetries();
      const started = Date.now();
      await Promise.all(allocates.map((e, n) => settleAt(n % NODES, e)));
      process.stdout.write(`galera: 60 Allocates of 1 on 40 over three nodes: ${JSON.stringify(statusesOf(allocates.map((e) => finalAnswer(e)!)))} in ${Date.now() - started} ms, ${(await certificationRetries()) - retriesBefore} transactions run again\n`);
      expect(statusesOf(allocates.map((e) => finalAnswer(e)!))).toEqual({ 201: 40, '409 insufficient': 20 });
      expect(await figuresOnEveryNode(ALLOCATED)).toEqual({ inStock: 40, onHold: 0, committed: 40, packed: 0, openAllocations: 40, available: 0 });
      await expectNodesExact();
    });
    it('30 allocations falling due while the three instances each look every second: each expires once, with one allocation.expired event, the same on every node', async () => {
      const stock = entry('Receive', EXPIRING, 30);
      await settleAt(0, stock);
      expect(final(stock)).toBe('201');
      const expiresAt = new Date(Math.ceil((Date.now() + 4000) / 1000) * 1000).toISOString();
      const allocates = Array.from({ length: 30 }, () => {
        const e = entry('Allocate', EXPIRING, 1);
        e.body.expiresAt = expiresAt;
        return e;
      });
      await Promise.all(allocates.map((e, n) => settleAt(n % NODES, e)));
      expect(statusesOf(allocates.map((e) => finalAnswer(e)!))).toEqual({ 201: 30 });
      const ids = allocates.map((e) => (finalAnswer(e)!.body as { allocation: { id: number } }).allocation.id);
      const retriesBefore = await certificationRetries();
      // Due in about 4 s; each instance looks every second, all three find the same 30.
      const until = Date.now() + 30_000;
      while (Date.now() < until && (await figuresOn(0, EXPIRING)).available < 30) await sleep(500);
      expect(await figuresOnEveryNode(EXPIRING)).toEqual({ inStock: 30, onHold: 0, committed: 0, packed: 0, openAllocations: 0, available: 30 });
      // The allocation.expired events of these allocations in the feed, once every instance has given its commits their seqs.
      const expired = new Map<number, number>();
      const earliest = new Map<number, number>();
      for (let tries = 0; tries < 40; tries++) {
        expired.clear();
        earliest.clear();
        let after = 0;
        for (;;) {
          const res = await fetch(`${services[tries % NODES].url}/api/v1/Events?after=${after}&limit=1000&types=allocation.expired`, { headers: { authorization: `Bearer ${client.token}` } });
          const page = (await res.json()) as { value: Array<{ occurred: string; data: { allocation: { id: number } } }>; next: number; hasMore: boolean };
          for (const e of page.value) {
            expired.set(e.data.allocation.id, (expired.get(e.data.allocation.id) ?? 0) + 1);
            earliest.set(e.data.allocation.id, Math.min(earliest.get(e.data.allocation.id) ?? Infinity, Date.parse(e.occurred)));
          }
          if (!page.hasMore) break;
          after = page.next;
        }
        if (ids.every((id) => expired.has(id))) break;
        await sleep(250);
      }
      process.stdout.write(`galera: 30 allocations expired by three instances looking every second, ${(await certificationRetries()) - retriesBefore} transactions run again\n`);
      expect(ids.map((id) => [id, expired.get(id) ?? 0])).toEqual(ids.map((id) => [id, 1]));
      // None before its time: each expired at or after its expiresAt.
      expect(ids.filter((id) => (earliest.get(id) ?? 0) < Date.parse(expiresAt))).toEqual([]);
      for (const i of [1, 2]) {
        const conn = await mysql.createConnection(nodeUrl(i));
        try {
          const [rows] = await conn.query(`SELECT COUNT(*) AS n FROM allocation WHERE id IN (${ids.map(() => '?').join(', ')}) AND state = 'cancelled'`, ids);
          expect(Number((rows as Array<{ n: number }>)[0].n)).toBe(30);
        } finally {
          await conn.end();
        }
      }
      await expectNodesExact();
    });
  });

  describe('a node SIGKILLed mid-burst, then restarted', () => {
    const KILLED = 2;
    const WORKERS_PER_INSTANCE = 3;
    const KILL_AFTER_MS = 4_000;
    const BURST_MS = 20_000;
    /** Every answer with the instance that gave it and when. */
    const answered: Array<{ instance: number; at: number; answer: Answer }> = [];
    const burstLog: LoggedRequest[] = [];
    let killedAt = 0;
    let healthWhileDown: Array<{ path: string; status: number; body: unknown }> = [];

    /**
     * Sends a write until its answer is final, as a client behind a load
     * balancer would: to its own instance, and to another one when its own
     * gives no answer or a 503 (the balancer takes an unready instance out).
     */
    const settleFrom = async (home: number, e: LoggedRequest) => {
      let instance = home;
      const until = Date.now() + 180_000;
      while (Date.now() < until) {
        const answer = await send(target(instance), e);
        if (answer) {
          e.answers.push(answer);
          answered.push({ instance, at: Date.now(), answer });
          if (!retryable(answer)) return;
        } else {
          e.lost++;
        }
        const down = !answer || answer.status === 503;
        if (down) instance = (instance + 1) % NODES === KILLED ? (instance + 2) % NODES : (instance + 1) % NODES;
        await sleep(answer?.body && (answer.body as { message?: string }).message?.includes('still in progress') ? 1_000 : 50);
      }
      throw new Error(`${e.key} never settled: ${JSON.stringify(e.answers.slice(-3))}`);
    };

    beforeAll(async () => {
      // Stock to work on in both warehouses.
      for (const itemID of KILL_ITEMS) {
        for (const wid of WIDS) {
          const e = entry('Receive', itemID, 50, wid);
          await settleFrom(0, e);
        }
      }
      const started = Date.now();
      const end = started + BURST_MS;
      const worker = async (home: number) => {
        while (Date.now() < end) {
          const e = randomRequest(`galera-kill-${++seq}`, KILL_ITEMS, WIDS);
          log.push(e);
          burstLog.push(e);
          await settleFrom(home, e);
        }
      };
      const killer = (async () => {
        await sleep(KILL_AFTER_MS);
        await cluster.kill(KILLED);
        killedAt = Date.now();
        // Its instance, asked while the workers go on: not healthy, not ready.
        await sleep(2_000);
        for (const path of ['/health', '/health/ready']) {
          const res = await fetch(`${services[KILLED].url}${path}`);
          healthWhileDown.push({ path, status: res.status, body: await res.json().catch(() => null) });
        }
      })();
      await Promise.all([killer, ...cluster.nodes.flatMap((_, i) => Array.from({ length: WORKERS_PER_INSTANCE }, () => worker(i)))]);
      const byInstance = cluster.nodes.map((_, i) => statusesOf(answered.filter((a) => a.instance === i).map((a) => a.answer)));
      process.stdout.write(
        `galera: kill burst: ${burstLog.length} writes, node ${KILLED + 1} killed at +${killedAt - started} ms; answers by instance ${JSON.stringify(byInstance)}; ` +
          `final ${JSON.stringify(statuses(burstLog))}\n`,
      );
    });

    it('keeps serving the clients of the other instances, with no 5xx', () => {
      const others = answered.filter((a) => a.instance !== KILLED);
      expect(others.filter((a) => a.answer.status >= 500).map((a) => `${a.instance}: ${a.answer.status} ${JSON.stringify(a.answer.body)}`)).toEqual([]);
      // Served after the kill too, not merely before it.
      expect(others.filter((a) => a.at > killedAt + 1_000 && a.answer.status < 300).length).toBeGreaterThan(20);
    });

    it('answers 503 on the killed node\'s instance (its writes, /health and /health/ready), never another 5xx, and stays up', () => {
      const own = answered.filter((a) => a.instance === KILLED && a.answer.status >= 500);
      // A write in flight there when its node died is among them.
      expect(own.length).toBeGreaterThan(0);
      expect(own.filter((a) => a.answer.status !== 503 || (a.answer.body as { error?: string }).error !== 'service_unavailable').map((a) => JSON.stringify(a.answer))).toEqual([]);
      expect(healthWhileDown).toEqual([
        { path: '/health', status: 503, body: expect.objectContaining({ error: 'service_unavailable' }) },
        { path: '/health/ready', status: 503, body: expect.objectContaining({ error: 'service_unavailable', message: 'Not ready: database down.' }) },
      ]);
      expect(services[KILLED].child.exitCode).toBeNull();
    });

    it('ends every write of the burst done or refused for insufficient stock', () => {
      const unsettled = burstLog
        .map((e) => ({ key: e.key, answer: finalAnswer(e) }))
        .filter(({ answer }) => !(answer && (answer.status < 300 || (answer.status === 409 && INSUFFICIENT.test((answer.body as { message?: string }).message ?? '')))));
      expect(unsettled).toEqual([]);
    });

    it('after the node rejoins, loses and doubles nothing: every node holds exactly what the clients were told', async () => {
      const rejoin = Date.now();
      const transfer = await cluster.restart(KILLED);
      process.stdout.write(`galera: node ${KILLED + 1} rejoined by ${transfer} and Synced in ${Date.now() - rejoin} ms\n`);
      await expectNodesExact();
    });

    it('serves again on the restarted node\'s instance', async () => {
      let health = 0;
      for (let i = 0; i < 100 && health !== 200; i++) {
        health = (await fetch(`${services[KILLED].url}/health/ready`)).status;
        if (health !== 200) await sleep(100);
      }
      expect(health).toBe(200);
      const e = entry('Receive', KILL_ITEMS[0], 1);
      const answer = await send(target(KILLED), e);
      if (answer) e.answers.push(answer);
      expect(answer?.status).toBe(201);
      await expectNodesExact();
    });
  });

  it('passes `ledger:check` of the CLI on every node', async () => {
    await cluster.settled();
    for (let i = 0; i < NODES; i++) {
      const { stdout } = await promisify(execFile)(process.execPath, ['dist/src/cli.js', 'ledger:check'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: nodeUrl(i) } });
      expect(JSON.parse(stdout)).toMatchObject({ ok: true });
    }
  });
});

/** "200", "409 insufficient", "409 contention", "409 other", "503", … or "none" (no answer). */
function kind(answer: Answer | undefined): string {
  if (!answer) return 'none';
  if (answer.status !== 409) return String(answer.status);
  const message = (answer.body as { message?: string } | null)?.message ?? '';
  if (INSUFFICIENT.test(message)) return '409 insufficient';
  if (message === CONTENTION) return '409 contention';
  return `409 ${message}`;
}

function statusesOf(answers: Answer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) out[kind(a)] = (out[kind(a)] ?? 0) + 1;
  return out;
}
