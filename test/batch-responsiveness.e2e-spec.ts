import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent } from './support/inventory.js';
import { startLiveProbe } from './support/live-probe.js';
import { givenManyLots } from './support/many-lots.js';
import { startService, type ServiceProcess } from './support/service-process.js';

/**
 * EXTENSIONS "Warehouse operations": whatever a batch holds, the instance
 * stays responsive while it runs, on SQLite too: `/health/live` answers
 * within 250 ms. The built service runs as a process of its own (so the
 * probe's times are its, not this test process's), on a database where one
 * item has 10,000 one-unit lots; `/health/live` is asked every 20 ms, from a
 * prober process of its own (a pause of this jest worker is not the
 * service's), for as long as each batch runs, and no answer may take more
 * than 250 ms.
 */
const LOTS = 10_000;
const MAX_LIVE_MS = 250;

describe(`a large batch leaves the instance responsive (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  let service: ServiceProcess;
  let bearer: string;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1] });
    service = await startService({ DATABASE_URL: t.database.url, LOG_LEVEL: 'info' });
    const token = await fetch(`${service.url}/api/v1/Token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: admin.clientId, client_secret: admin.clientSecret }),
    });
    bearer = `Bearer ${((await token.json()) as { access_token: string }).access_token}`;
  }, 120_000);

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await expectLedgerConsistent(t);
    await t.close();
  });

  /** Sends the batch to the service process while `/health/live` is asked every 20 ms (from a process of its own); the batch's answer and every probe's time. */
  async function probedBatch(operations: unknown[]): Promise<{ status: number; body: { results?: Array<{ lots: unknown[] }> }; probes: number[] }> {
    const probe = await startLiveProbe(service.url);
    const answer = await fetch(`${service.url}/api/v1/Inventory/Batch`, {
      method: 'POST',
      headers: { Authorization: bearer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ operations }),
    });
    const body = (await answer.json()) as { results?: Array<{ lots: unknown[] }> };
    return { status: answer.status, body, probes: await probe.stop() };
  }

  const report = (name: string, probes: number[]) =>
    process.stdout.write(`batch responsiveness (${testDatabaseKind()}), ${name}: ${probes.length} probes, slowest ${Math.round(Math.max(...probes))} ms\n`);

  it(`holds ${LOTS.toLocaleString('en')} lots in one operation, /health/live within ${MAX_LIVE_MS} ms throughout`, async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenManyLots(t, admin.bearer, admin.clientId, itemID, LOTS, 1);
    const { status, body, probes } = await probedBatch([{ op: 'hold', itemID, wid: 1, reasonCode: 3 }]);
    report('hold of 10,000 lots', probes);
    expect(status).toBe(200);
    expect(body.results?.[0].lots).toHaveLength(LOTS);
    expect(probes.length).toBeGreaterThanOrEqual(3);
    expect(probes.filter((ms) => ms > MAX_LIVE_MS)).toEqual([]);
  });

  it(`runs 250 operations over ${LOTS.toLocaleString('en')} lots (moves that split lots, then a hold), /health/live within ${MAX_LIVE_MS} ms throughout`, async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenManyLots(t, admin.bearer, admin.clientId, itemID, LOTS, 1);
    // 249 moves of 19.5 units (about 20 lots each, every other one splitting a lot), then a hold of 4,000 units: about 9,000 lots.
    const operations = [
      ...Array.from({ length: 249 }, () => ({ op: 'move', itemID, wid: 1, toSpot: 'B-01', units: 19.5, reasonCode: 3 })),
      { op: 'hold', itemID, wid: 1, spot: 'BULK', units: 4_000, reasonCode: 3 },
    ];
    const { status, body, probes } = await probedBatch(operations);
    report('249 moves and a hold', probes);
    expect(status).toBe(200);
    expect(body.results).toHaveLength(250);
    expect(probes.length).toBeGreaterThanOrEqual(3);
    expect(probes.filter((ms) => ms > MAX_LIVE_MS)).toEqual([]);
  });

  it(`runs 250 counts of an item with ${LOTS.toLocaleString('en')} lots (the units on hand summed, not read lot by lot), /health/live within ${MAX_LIVE_MS} ms throughout`, async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenManyLots(t, admin.bearer, admin.clientId, itemID, LOTS, 1);
    // 248 counts that find what is there, then one that takes 10 units away and one that finds them gone.
    const operations = [
      ...Array.from({ length: 248 }, () => ({ op: 'count', itemID, wid: 1, counted: LOTS, expected: LOTS, reasonCode: 5 })),
      { op: 'count', itemID, wid: 1, counted: LOTS - 10, expected: LOTS, reasonCode: 5 },
      { op: 'count', itemID, wid: 1, counted: LOTS - 10, expected: LOTS - 10, reasonCode: 5 },
    ];
    const { status, body, probes } = await probedBatch(operations);
    report('250 counts', probes);
    expect(status).toBe(200);
    expect(body.results?.map((r) => r.lots.length)).toEqual([...Array(248).fill(0), 10, 0]);
    expect(probes.filter((ms) => ms > MAX_LIVE_MS)).toEqual([]);
  });
});
