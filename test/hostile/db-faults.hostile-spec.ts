import mysql from 'mysql2/promise';
import type { TestDatabase } from '../app.factory.js';
import type { TestClient } from '../support/auth.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { LOST_CONNECTION_RETRY } from '../../src/database/errors.js';
import { expectExact, expectSettled, givenWorkloadDatabase, type LoggedRequest, randomRequest, settle, sleep, statuses, type Target, verify } from './workload.js';

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
    ({ db, clients: [client] } = await givenWorkloadDatabase(ITEMS, WIDS));
  });

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await db.drop();
  });

  it('loses, invents and duplicates nothing, and serves on without a restart', async () => {
    service = await startService({ DATABASE_URL: db.url });
    const target: Target = { url: service.url, token: client.token };
    const log: LoggedRequest[] = [];

    // Kills every connection the service holds to its database, a few times a second.
    const admin = await mysql.createConnection(process.env.TEST_MYSQL_URL!);
    const name = new URL(db.url).pathname.slice(1);
    let kills = 0;
    const injector = (async () => {
      const until = Date.now() + FAULT_MS;
      while (Date.now() < until) {
        await sleep(150 + Math.random() * 350);
        const [rows] = await admin.query('SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [name]);
        for (const { id } of rows as Array<{ id: number }>) {
          await admin.query(`KILL CONNECTION ${Number(id)}`).then(() => kills++, () => undefined); // already gone: fine
        }
      }
    })();

    // Each request is sent until its answer is final; a 503 or "in progress"
    // (the key of an attempt that died is freed at once, or after 60 s if
    // freeing it failed too) is sent again.
    let next = 0;
    const worker = async () => {
      while (next < WRITES) {
        const entry = randomRequest(`fault-${++next}`, ITEMS, WIDS);
        log.push(entry);
        await settle(entry, () => target, (answer) => (answer?.status === 409 ? 2_000 : 100));
      }
    };
    await Promise.all([injector, ...Array.from({ length: WORKERS }, worker)]);
    await admin.end();

    // Still the same process, serving again once the kills stop (its pool replaces the dead connections).
    expect(service.child.exitCode).toBeNull();
    let health = 0;
    for (let i = 0; i < 50 && health !== 200; i++) {
      health = (await fetch(`${service.url}/health`)).status;
      if (health !== 200) await sleep(100);
    }
    expect(health).toBe(200);

    const verdict = await verify(db.target, log);
    const failures = log.flatMap((e) => e.answers).filter((a) => a.status >= 500);
    const retried = log.filter((e) => e.answers.length + e.lost > 1).length;
    process.stdout.write(
      `db-faults: ${kills} connections killed in ${FAULT_MS / 1000} s, ${log.length} writes, ${retried} retried, ${failures.length} attempts answered 503, ` +
        `${verdict.succeeded} succeeded, ${verdict.ledgerRows} ledger rows, units off ${verdict.unitsOff}; answers ${JSON.stringify(statuses(log))}\n`,
    );
    expectExact(verdict);
    // Every request ended done or short of stock; on the way, the only 5xx was the 503 of a lost connection.
    expectSettled(log, { allow503: true });
    expect(kills).toBeGreaterThan(20);
    // The faults did reach requests: the 503s were seen, in the error shape, telling the client to retry.
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) {
      expect({ status: f.status, body: f.body }).toEqual({ status: 503, body: { statusCode: 503, error: 'service_unavailable', message: LOST_CONNECTION_RETRY, details: null } });
    }
    expect(verdict.succeeded).toBeGreaterThan(WRITES / 2);
  });
});
