import type { TestDatabase } from '../app.factory.js';
import type { TestClient } from '../support/auth.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { expectExact, expectSettled, finalAnswer, givenWorkloadDatabase, KnownDocuments, type LoggedRequest, randomRequest, retryable, send, settle, sleep, statuses, type Target, verify, verifyFeed } from './workload.js';

/**
 * Three instances of the built service on one MariaDB database and one Redis,
 * clients spread over them round-robin: a random mix of Receive, Issue and
 * Move on a few items, and of allocations (Allocate, Pack, Issue against one,
 * Cancel) and expectations (Expect, Ship, Receive against one, Cancel) of them,
 * retried on another instance when an answer is lost or
 * says "try again", keys replayed on other instances, the same key sent to two
 * instances at once. Afterwards the database must hold exactly what the
 * clients were told (the ledger, and every document as its answers left it,
 * with committed + packed and onOrder + aSN what is left on the open ones),
 * and nothing may be oversold or done twice.
 */
const INSTANCES = 3;
const WORKERS = 12;
const WRITES = 1_500;
const ITEMS = ['MULTI-A', 'MULTI-B', 'MULTI-C'];
const WIDS = [1, 2];

describe('several instances on one MariaDB and Redis', () => {
  let db: TestDatabase;
  let client: TestClient;
  /** A client of its own for the rate limit, whose counter no other test touches. */
  let limited: TestClient;
  let services: ServiceProcess[] = [];
  const redis = process.env.TEST_REDIS_URL!;

  beforeAll(async () => {
    ({ db, clients: [client, limited] } = await givenWorkloadDatabase(ITEMS, WIDS, 2));
  });

  afterEach(async () => {
    await Promise.all(services.map((s) => s.kill('SIGTERM')));
    services = [];
  });

  afterAll(() => db.drop());

  const start = async (env: Record<string, string> = {}) => {
    services = await Promise.all(Array.from({ length: INSTANCES }, () => startService({ DATABASE_URL: db.url, REDIS_URL: redis, ...env })));
    return services.map((s): Target => ({ url: s.url, token: client.token }));
  };

  it('keeps the ledger exact under a mixed workload with retries and reused keys', async () => {
    const targets = await start();
    const log: LoggedRequest[] = [];
    let turn = 0;
    const nextTarget = () => targets[turn++ % targets.length];
    const replays = { sent: 0, identical: 0 };
    const races = { sent: 0, executedOnce: 0 };

    // Sends until answered with something final, moving to the next instance on every retry.
    const settleHere = (entry: LoggedRequest) => settle(entry, nextTarget, (_, attempt) => 50 * (attempt + 1), 20);

    let next = 0;
    const documents = new KnownDocuments();
    const worker = async (w: number) => {
      while (next < WRITES) {
        const entry = randomRequest(`multi-${++next}`, ITEMS, WIDS, Math.random, false, documents);
        log.push(entry);
        const roll = Math.random();
        if (roll < 0.05) {
          // The same key at two instances at once: one does it, the other waits its turn.
          races.sent++;
          const [a, b] = await Promise.all([send(nextTarget(), entry), send(nextTarget(), entry)]);
          for (const answer of [a, b]) if (answer) entry.answers.push(answer);
          if (!entry.answers.some((x) => !retryable(x))) await settleHere(entry);
          if (entry.answers.filter((x) => x.status < 300 && !x.replayed).length <= 1) races.executedOnce++;
        } else {
          await settleHere(entry);
        }
        if (roll > 0.9) {
          // A client that never saw its answer sends the key again, at another instance.
          const first = finalAnswer(entry)!;
          const again = await send(nextTarget(), entry);
          replays.sent++;
          if (again) entry.answers.push(again);
          if (first.status < 300 && again && again.replayed && again.status === first.status && JSON.stringify(again.body) === JSON.stringify(first.body)) replays.identical++;
          if (first.status >= 300 && again && !again.replayed) replays.identical++; // failures are not stored: retried afresh
        }
        documents.learn(entry);
      }
      return w;
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));

    const verdict = await verify(db.target, log);
    process.stdout.write(
      `instances: ${log.length} writes over ${INSTANCES} instances, ${log.reduce((n, e) => n + e.answers.length + e.lost, 0)} requests, ` +
        `${replays.sent} replays, ${races.sent} same-key races, ${verdict.succeeded} succeeded, ${verdict.ledgerRows} ledger rows, ` +
        `units off ${verdict.unitsOff}, ${verdict.documentsMade} documents made and ${verdict.documentChanges} changed; answers ${JSON.stringify(statuses(log))}\n`,
    );
    expectExact(verdict);
    expect(replays.identical).toBe(replays.sent);
    expect(races.executedOnce).toBe(races.sent);
    // A request executed twice would have two non-replayed 2xx answers.
    expect(log.filter((e) => e.answers.filter((a) => a.status < 300 && !a.replayed).length > 1).map((e) => e.key)).toEqual([]);
    // Every write ended done or refused for the client's own reason (not enough stock), and no answer was a 5xx.
    expectSettled(log);
    expect(verdict.succeeded).toBeGreaterThan(WRITES / 2);
    // The feed, as the first instance serves it: one event per committed operation, seqs 1, 2, 3, … (EXTENSIONS "Events").
    const feed = await verifyFeed(targets[0], db.target, log);
    expect({ ...feed, events: feed.events > 0 }).toEqual({ events: true, outOfOrder: [], withoutEvent: [], withoutLedgerRow: [], documentEvents: [] });
    expect({ made: verdict.documentsMade >= 100, changed: verdict.documentChanges >= 100 }).toEqual({ made: true, changed: true });
  });

  it('counts one client\'s rate limit across all instances through Redis', async () => {
    const LIMIT = 30;
    const targets = await start({ RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    // Stay inside one fixed window: if the current one ends within 20 s, wait for the next.
    const probe = await fetch(`${targets[0].url}/api/v1/Item?pageSize=1`, { headers: { Authorization: limited.bearer } });
    const reset = Number(/t=(\d+)/.exec(probe.headers.get('ratelimit') ?? '')?.[1] ?? 60);
    let used = 1;
    if (reset < 20) {
      await sleep((reset + 1) * 1000);
      used = 0;
    }
    const codes: number[] = [];
    for (let i = 0; i < LIMIT + 15; i++) {
      const res = await fetch(`${targets[i % INSTANCES].url}/api/v1/Item?pageSize=1`, { headers: { Authorization: limited.bearer } });
      await res.arrayBuffer();
      codes.push(res.status);
    }
    expect(codes.filter((c) => c === 200)).toHaveLength(LIMIT - used);
    expect(codes.filter((c) => c === 429)).toHaveLength(15 + used);
    // The refusals come after the allowance, whichever instance answered.
    expect(codes.indexOf(429)).toBe(LIMIT - used);
  });
});
