import mysql from 'mysql2/promise';
import request from 'supertest';
import { createTestDatabase, startTestApp, type TestDatabase } from '../app.factory.js';
import { givenClient, type TestClient } from '../support/auth.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { type Answer, expectExact, type LoggedRequest, randomRequest, send, sleep, statuses, type Target, verify } from './workload.js';

/**
 * Database faults: while the built service takes concurrent Receive / Issue /
 * Move requests with Idempotency-Keys, MariaDB kills the service's
 * connections again and again (`KILL CONNECTION`: mid-query, mid-transaction,
 * mid-commit). Requests caught by a kill may fail; clients retry them with
 * their keys, as they would any 5xx. The service must stay up and serve again
 * without a restart, answer every failure in the error shape, and the
 * database must hold exactly what the clients were told: a change whose
 * commit landed before its connection died is replayed, never done twice.
 */
const WORKERS = 8;
const WRITES = 600;
const FAULT_MS = 15_000;
const ITEMS = ['FAULT-A', 'FAULT-B', 'FAULT-C', 'FAULT-D'];
const WIDS = [1, 2];

describe('database connections killed under concurrent writes (MariaDB)', () => {
  let db: TestDatabase;
  let client: TestClient;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    const t = await startTestApp({ database: db });
    client = await givenClient(t, { warehouses: WIDS });
    for (const shortID of ITEMS) {
      const res = await request(t.http).post('/api/v1/Item').set('Authorization', client.bearer).send({ shortID });
      if (res.status !== 201) throw new Error(`item: ${res.status} ${res.text}`);
    }
    await t.close();
  });

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await db.drop();
  });

  it('loses, invents and duplicates nothing, and serves on without a restart', async () => {
    service = await startService({ DATABASE_URL: db.url });
    const target: Target = { url: service.url, token: client.token };
    const log: LoggedRequest[] = [];
    const failures: Answer[] = [];

    // Kills every connection the service holds to its database, a few times a second.
    const admin = await mysql.createConnection(process.env.TEST_MYSQL_URL!);
    const name = new URL(db.url).pathname.slice(1);
    let kills = 0;
    let faulting = true;
    const injector = (async () => {
      const until = Date.now() + FAULT_MS;
      while (Date.now() < until) {
        await sleep(150 + Math.random() * 350);
        const [rows] = await admin.query('SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [name]);
        for (const { id } of rows as Array<{ id: number }>) {
          await admin.query(`KILL CONNECTION ${Number(id)}`).then(() => kills++, () => undefined); // already gone: fine
        }
      }
      faulting = false;
    })();

    // Each request is sent until it gets an answer that is final for a client: a 2xx, or a refusal for lack of stock.
    const settle = async (entry: LoggedRequest) => {
      for (let attempt = 0; attempt < 60; attempt++) {
        const answer = await send(target, entry);
        if (answer) entry.answers.push(answer);
        else entry.lost++;
        if (answer && answer.status < 300) return;
        if (answer?.status === 409 && /^Insufficient stock/.test((answer.body as { message: string }).message)) return;
        if (answer && answer.status !== 409) failures.push(answer);
        // "In progress": the first attempt's key is still claimed (freed at once on failure, or after 60 s if that failed too).
        await sleep(answer?.status === 409 ? 2_000 : 100);
      }
      throw new Error(`${entry.key} never settled: ${JSON.stringify(entry.answers.slice(-3))}`);
    };
    let next = 0;
    const worker = async () => {
      while (next < WRITES) {
        const entry = randomRequest(`fault-${++next}`, ITEMS, WIDS);
        log.push(entry);
        await settle(entry);
      }
    };
    await Promise.all([injector, ...Array.from({ length: WORKERS }, worker)]);
    await admin.end();
    expect(faulting).toBe(false);

    // Still the same process, serving.
    expect(service.child.exitCode).toBeNull();
    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);

    const verdict = await verify(db.target, log);
    const retried = log.filter((e) => e.answers.length + e.lost > 1).length;
    process.stdout.write(
      `db-faults: ${kills} connections killed in ${FAULT_MS / 1000} s, ${log.length} writes, ${retried} retried, ${failures.length} failed attempts ` +
        `(${JSON.stringify(countBy(failures.map((f) => `${f.status} ${(f.body as { error?: string })?.error}`)))}), ` +
        `${verdict.succeeded} succeeded, ${verdict.ledgerRows} ledger rows, units off ${verdict.unitsOff}; answers ${JSON.stringify(statuses(log))}\n`,
    );
    expectExact(verdict);
    expect(kills).toBeGreaterThan(20);
    // The faults reached requests, and every failure they caused was in the error shape and said to retry.
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) {
      expect({ status: f.status, body: f.body }).toEqual({
        status: 503,
        body: { statusCode: 503, error: 'service_unavailable', message: expect.stringMatching(/database/i), details: null },
      });
    }
    expect(verdict.succeeded).toBeGreaterThan(WRITES / 2);
  });
});

function countBy(xs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}
