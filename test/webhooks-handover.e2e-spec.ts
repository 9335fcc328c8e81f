import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import mysql from 'mysql2/promise';
import { WebhookSubscription } from '../src/events/events.entities.js';
import { WebhookRelay } from '../src/events/webhook-relay.js';
import { WebhookService } from '../src/events/webhooks.service.js';
import { createTestDatabase, startTestApp, testDatabaseKind, type TestApp, type TestDatabase } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { eventsAfter, lastSeq } from './support/events.js';
import { type ServiceProcess, startService } from './support/service-process.js';
import { sleep, until } from './support/webhooks.js';

/**
 * Two instances of the built service, A and B, and one subscription, driven
 * through one interleaving, step by step, with every receiver answer a 2xx:
 *
 *   1. B looks for work and reads the subscription, free and behind the
 *      feed, and is held before it claims it;
 *   2. A claims it, delivers every event, records its position and gives
 *      the lease back;
 *   3. B goes on: it claims the subscription (free again).
 *
 * Each event must still reach the receiver exactly once and in seq order
 * (EXTENSIONS "Events" → "Webhooks": without a kill, a shutdown or a failed
 * attempt, whatever the number of instances). A relay that works from the
 * position its look read, rather than the one recorded when it holds the
 * lease, sends A's events a second time, after them.
 *
 * How the steps are made, with the service's own code untouched: the test
 * pauses and continues the processes (SIGSTOP, SIGCONT), and holds B between
 * its look and its claim with a real lock of the database that the look does
 * not need:
 * - SQLite: the file's write lock, held by a connection of the test (B's look
 *   reads; its claim, a write, waits for the lock: sqlite-writer.ts waits
 *   asynchronously, so the stopped process holds nothing);
 * - MariaDB: a WRITE lock on integration_client (B's look reads
 *   webhook_subscription; with ACCOUNT_CACHE_SECONDS=0 it then reads its
 *   client's account, which waits; the server shows that wait, so the test
 *   knows B is there). The claim, an UPDATE, is not where B is held: the
 *   server would carry it out for the stopped process and hold its row lock.
 * The events are written and published by a third instance, in this test
 * process, whose relay is stopped; A and B are paused meanwhile.
 */
const EVENTS = 6;

describe(`webhook relay: an instance that looked before another delivered (${testDatabaseKind()})`, () => {
  let db: TestDatabase;
  /** The writer and publisher (its relay stopped). */
  let c: TestApp;
  let writer: TestClient;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let server: Server;
  let receiverUrl: string;
  /** Every request the receiver got, in arrival order. */
  const got: Array<{ id: string; seq: number }> = [];
  /** The lock that holds B before its claim, while it is held. */
  let hold: { held: () => Promise<void>; release: () => Promise<void> } | null = null;

  beforeAll(async () => {
    db = await createTestDatabase();
    c = await startTestApp({ database: db });
    await c.app.get(WebhookRelay).onModuleDestroy();
    writer = await givenClient(c);
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        got.push({ id: String(req.headers['webhook-id']), seq: (JSON.parse(Buffer.concat(chunks).toString()) as { seq: number }).seq });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    // No account cache: B reads its client's account between its look and its claim (where MariaDB holds it).
    const env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true', ACCOUNT_CACHE_SECONDS: '0' };
    [a, b] = await Promise.all([startService(env), startService(env)]);
  }, 60_000);

  afterAll(async () => {
    await hold?.release();
    for (const s of [a, b]) {
      if (!s) continue;
      s.child.kill('SIGCONT');
      await s.kill('SIGTERM');
    }
    await c?.close();
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await db?.drop();
  });

  const pause = (s: ServiceProcess) => s.child.kill('SIGSTOP');
  const resume = (s: ServiceProcess) => s.child.kill('SIGCONT');
  const subscription = (id: number) => c.dataSource.getRepository(WebhookSubscription).findOneByOrFail({ id });

  /** A lock of the database that B's look does not need and its way to the claim does (see the file's comment). */
  async function holdBeforeClaim(): Promise<{ held: () => Promise<void>; release: () => Promise<void> }> {
    if (db.target.type === 'sqlite') {
      const conn = new DatabaseSync(db.target.file, { timeout: 0 });
      await until(() => {
        try {
          conn.exec('BEGIN IMMEDIATE');
          return true;
        } catch (error) {
          if ((error as { errcode?: number }).errcode === 5) return false; // SQLITE_BUSY: a writer of the service holds it
          throw error;
        }
      }, 5000, "the file's write lock");
      return {
        // Nothing shows a wait for SQLite's lock. Once B answers again it runs, and its relay looks within
        // a second (IDLE_POLL_MS; at once if its idle timer ran out while it was stopped); then it waits at its claim.
        held: async () => {
          await until(async () => (await fetch(`${b.url}/health/live`).catch(() => null))?.ok === true, 10_000, 'B running again');
          await sleep(1500);
        },
        release: async () => {
          hold = null;
          conn.exec('ROLLBACK');
          conn.close();
        },
      };
    }
    const conn = await mysql.createConnection(db.url);
    await conn.query('LOCK TABLES integration_client WRITE');
    return {
      held: () =>
        until(async () => {
          const [row] = await c.dataSource.query(
            "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND STATE LIKE 'Waiting for table%' AND INFO LIKE ?",
            [db.target.type === 'mysql' ? db.target.database : '', '%integration_client%'],
          );
          return Number(row.n) > 0;
        }, 10_000, "B's read of its client, waiting for the lock"),
      release: async () => {
        hold = null;
        await conn.query('UNLOCK TABLES');
        await conn.end();
      },
    };
  }

  it('delivers each event once and in seq order when B claims the subscription after A delivered from it', async () => {
    const from = await lastSeq(c);
    const { id } = await c.app.get(WebhookService).create({ clientId: writer.clientId, url: receiverUrl });
    // A and B are idle (nothing to deliver yet): paused, they hold no lock.
    pause(a);
    pause(b);
    for (let i = 0; i < EVENTS; i++) await givenItem(c, writer.bearer);
    const feed = (await eventsAfter(c, writer.bearer, from)).map((e) => e.seq);
    expect(feed).toHaveLength(EVENTS);

    // 1. B looks, reads the subscription (free, behind the feed) and is held before its claim; then paused.
    hold = await holdBeforeClaim();
    resume(b);
    await hold.held();
    pause(b);
    await hold.release();

    // 2. A delivers every event, records its position and gives the lease back.
    resume(a);
    await until(() => got.length >= EVENTS, 10_000, "A's deliveries");
    await until(async () => {
      const row = await subscription(id);
      return row.afterSeq >= feed[feed.length - 1] && row.leaseOwner === null;
    }, 10_000, "A's position recorded and its lease given back");

    // 3. B goes on from where it was held: it claims the subscription, free again.
    resume(b);
    await sleep(2000); // a repeat would come at once
    await until(async () => (await subscription(id)).leaseOwner === null, 10_000, 'the lease given back');

    const seqs = got.map((g) => g.seq);
    const ids = got.map((g) => g.id);
    const repeated = got.filter((g, at) => ids.indexOf(g.id) !== at).map((g) => g.seq);
    const backwards = seqs.filter((seq, at) => at > 0 && seq <= seqs[at - 1]);
    expect({ received: seqs, repeated, backwards }).toEqual({ received: feed, repeated: [], backwards: [] });
  }, 60_000);
});
