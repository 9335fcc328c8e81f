import { testDatabaseKind, type TestDatabase } from '../app.factory.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { expectExact, expectSettled, finalAnswer, givenWorkloadDatabase, KnownDocuments, type LoggedRequest, randomRequest, retryable, send, settle, sleep, statuses, succeeded, type Target, verify, verifyFeed } from './workload.js';

/**
 * Crash safety: the built service takes concurrent Receive / Issue / Move
 * requests, allocations (Allocate, Pack, Issue against one, Cancel) and
 * expectations (Expect, Ship, Receive against one, Cancel), and batches of
 * them, each with its own Idempotency-Key, and is killed with SIGKILL in
 * the middle of them. After a restart, every request that got no answer is
 * retried with its key, as a client would. Then the database must hold
 * exactly what the clients were told: every 2xx once in the ledger, nothing
 * else, and the stock equal to the sum of the answers; every document made
 * once, as the answers left it, and committed + packed, onOrder + aSN what is
 * left on the open ones; and the event feed
 * must hold exactly one event per committed operation, in seqs 1, 2, 3, …
 * (nothing committed missing, nothing rolled back in it).
 */
const WORKERS = 8;
const ITEMS = ['CRASH-A', 'CRASH-B', 'CRASH-C', 'CRASH-D'];
const WIDS = [1, 2];

describe(`crash safety on ${testDatabaseKind()}`, () => {
  let db: TestDatabase;
  let token: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    let clients;
    ({ db, clients } = await givenWorkloadDatabase(ITEMS, WIDS));
    token = clients[0].token;
  });

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await db.drop();
  });

  it('loses, invents and duplicates nothing when killed with SIGKILL under concurrent writes', async () => {
    const log: LoggedRequest[] = [];
    service = await startService({ DATABASE_URL: db.url });
    const target: Target = { url: service.url, token };

    // Each worker sends one request at a time until the service dies under it.
    let next = 0;
    let dead = false;
    const documents = new KnownDocuments();
    const worker = async () => {
      while (!dead) {
        const entry = randomRequest(`crash-${++next}`, ITEMS, WIDS, Math.random, true, documents);
        log.push(entry);
        const answer = await send(target, entry);
        if (answer) entry.answers.push(answer);
        else entry.lost++;
        documents.learn(entry);
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    // Let it run until a good number of writes have been answered, then kill it mid-flight.
    const until = Date.now() + 30_000;
    while (log.filter((e) => e.answers.length).length < 300 && Date.now() < until) await sleep(20);
    const killed = await service.kill('SIGKILL');
    dead = true;
    await Promise.all(workers);
    expect(killed.signal).toBe('SIGKILL');

    service = await startService({ DATABASE_URL: db.url });
    const restarted: Target = { url: service.url, token };
    // Every request the kill left unanswered (about one per client) is retried
    // with its own key until it gets a final answer. A key whose first request
    // died uncommitted frees up after 60 seconds ("in progress" until then).
    const unanswered = log.filter((e) => !e.answers.length);
    // So is a request answered before the kill with an invitation to retry (409 "…retry it."
    // after the service's own deadlock retries ran out), as any client following the API would.
    const toRetry = log.filter((e) => e.answers.length && retryable(e.answers[e.answers.length - 1]));
    await Promise.all([...unanswered, ...toRetry].map((entry) => settle(entry, () => restarted, (answer) => (answer ? 2_000 : 200))));
    // Which of them had committed before the kill: their retry is a replay of the stored answer.
    const committedBeforeKill = unanswered.filter((e) => e.answers.some((a) => a.replayed)).length;
    const retries = unanswered.reduce((n, e) => n + e.answers.length + e.lost, 0);

    // Replaying an answered key after the restart gives the stored answer and does nothing.
    const answered = log.filter((e) => e.answers.length === 1 && succeeded(e)).slice(0, 20);
    for (const entry of answered) {
      const again = await send(restarted, entry);
      expect(again).toEqual({ ...finalAnswer(entry)!, replayed: true });
    }

    const verdict = await verify(db.target, log);
    process.stdout.write(
      `crash (${testDatabaseKind()}): ${log.length} writes, ${unanswered.length} in flight at SIGKILL (${committedBeforeKill} of them committed before it), ${retries} retries after restart, ` +
        `${verdict.succeeded} succeeded, ${verdict.ledgerRows} ledger rows, units off ${verdict.unitsOff}, ${verdict.documentsMade} documents made and ${verdict.documentChanges} changed; answers ${JSON.stringify(statuses(log))}\n`,
    );
    expectExact(verdict);
    expectSettled(log);
    const feed = await verifyFeed(restarted, db.target, log);
    expect({ ...feed, events: feed.events > 0 }).toEqual({ events: true, outOfOrder: [], withoutEvent: [], withoutLedgerRow: [], documentEvents: [] });
    expect(verdict.succeeded).toBeGreaterThanOrEqual(200);
    expect({ made: verdict.documentsMade >= 20, changed: verdict.documentChanges >= 20 }).toEqual({ made: true, changed: true });
  });
});
