import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import mysql from 'mysql2/promise';
import { appendResults, commitLabel, getToken, memoryMb, paced, post, prodNodeFlags, runMain, shortIdOf, start, stopAndCheckLedger, stopProcess, waitHealthy, waitQuiet } from './harness.js';
import { defaultAllocations, fillListCounters, seed, type Seeded, seededBefore } from './seed.js';

/**
 * npm run bench [-- --lots 1000000] [-- --allocations 100000] [-- --quick] [-- --warmup 2] [-- --warmup-max 20]: seeds
 * MariaDB (with `--allocations` open allocations, by default one for every ten
 * lots: seed.ts, seedAllocations), starts the built service in production mode with the bench client's
 * rate limit lifted, drives it over loopback with autocannon (after a warm-up
 * of the same requests, not measured: `--warmup` seconds, then longer while
 * it still speeds up, at most `--warmup-max` seconds; see `warmUp`) and
 * compares every scenario with the
 * ceiling of the same work (ceilings.ts) measured in the same run. Appends the
 * results to bench/RESULTS.md.
 */
const { values: args } = parseArgs({
  options: {
    lots: { type: 'string' },
    allocations: { type: 'string' },
    quick: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    warmup: { type: 'string', default: '2' },
    'warmup-max': { type: 'string', default: '20' },
    connections: { type: 'string', default: '32' },
    'no-seed': { type: 'boolean', default: false },
    'buffer-pool': { type: 'string', default: 'fit' },
  },
});
const QUICK = args.quick === true;
const LOTS = Number(args.lots ?? (QUICK ? 10_000 : 1_000_000));
if (!Number.isInteger(LOTS) || LOTS < 1) throw new Error('--lots must be a positive integer');
const ALLOCATIONS = Number(args.allocations ?? defaultAllocations(LOTS));
if (!Number.isInteger(ALLOCATIONS) || ALLOCATIONS < 0) throw new Error('--allocations must be a whole number, 0 or more');
const SECONDS = Number(args.seconds ?? (QUICK ? 4 : 15));
const CONNECTIONS = Number(args.connections);
const WARMUP = Number(args.warmup);
if (!(WARMUP >= 0)) throw new Error('--warmup must be a number of seconds, 0 or more');
const WARMUP_MAX = Number(args['warmup-max']);
if (!(WARMUP_MAX >= WARMUP)) throw new Error('--warmup-max must be a number of seconds, at least --warmup');
/** The warm-up goes on in steps this long while each answers more than WARMUP_GAIN times the rate of the one before. */
const WARMUP_STEP = 2;
const WARMUP_GAIN = 1.05;
/** 'until steady' (`warmUp`), or only the fixed --warmup: the alternating rounds of a setting's cost. */
type WarmUp = 'until steady' | 'fixed';
if (args['buffer-pool'] !== 'fit' && args['buffer-pool'] !== 'keep') throw new Error('--buffer-pool must be fit or keep');
const DB_URL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/inventory_bench';
// BENCH_PORT moves the seven ports (service, ceiling (a), ceilings (b)–(d), (f) and (g), the setting-off service of a setting's cost, ceiling (e), the webhook receiver, the setting-on service of a setting's cost) together, e.g. for a second checkout's run.
const PORT_BASE = Number(process.env.BENCH_PORT ?? 3901);
const PORTS = { service: PORT_BASE, nest: PORT_BASE + 1, raw: PORT_BASE + 2, second: PORT_BASE + 3, stack: PORT_BASE + 4, receiver: PORT_BASE + 5, fresh: PORT_BASE + 6 };
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** The ceiling compared with, as printed: `(b)`, or `≈ (c) page 1 (25)` when it is the nearest work rather than the same. */
  ceiling?: string;
  vsCeiling?: number;
  vsNest?: number;
}

/** Which ceiling a scenario is compared with: one of them, or a blend of several weighted by the scenario's mix. */
type CeilingRef = { key: CeilingKey; near?: boolean } | { blend: Array<[weight: number, key: CeilingKey, near?: boolean]> };
type CeilingKey = 'b' | 'c1' | 'c25' | 'cN' | 'd' | 'g' | 'h';

/** The whole run, with MariaDB's buffer pool sized for it (`fitBufferPool`) and set back after, whatever happens. */
async function main(): Promise<void> {
  const kept = await bufferPoolKept();
  bufferPool = kept;
  try {
    if (args['buffer-pool'] === 'fit') bufferPool = await fitBufferPool(LOTS, kept.bytes);
    await run();
  } finally {
    // Also when the resize itself failed half-way: the server gets back the size it had.
    if (args['buffer-pool'] === 'fit' && (await bufferPoolKept()).bytes !== kept.bytes) {
      await withServer((db) => db.query('SET GLOBAL innodb_buffer_pool_size = ?', [kept.bytes]));
      log(`buffer pool set back to ${mb(kept.bytes)}`);
    }
  }
}

/**
 * About what a lot costs InnoDB with its share of the ledger, stock-level and
 * item rows and of their indexes: 1,000,000 seeded lots took 0.80 GB of data
 * and indexes (lot 0.50, ledger_entry 0.20, item 0.06, stock_level 0.05).
 * Seeded allocations are left to POOL_HEADROOM: 5,000 took 1.4 MB, so the
 * 100,000 of a 1,000,000-lot run take some 30 MB.
 */
const POOL_BYTES_PER_LOT = 1024;
const POOL_HEADROOM = 256 * 2 ** 20;
const POOL_STEP = 128 * 2 ** 20;
/** The buffer pool of this run: its size, and the server's own size when the run raised it (null: left as it was). */
let bufferPool: { bytes: number; raisedFrom: number | null } | null = null;
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20).toLocaleString('en')} MB`;

/**
 * Raises InnoDB's buffer pool, before seeding, to hold the tables of `lots`
 * lots (POOL_BYTES_PER_LOT each) with POOL_HEADROOM, as docs/deployment.md
 * advises for production: the Issues, Counts and Holds of random items read
 * lot pages from anywhere in the table, and on a pool smaller than the table
 * they wait on page reads, which measures the server's memory rather than the
 * service. Never lowers it. The size is set back when the run ends
 * (`--buffer-pool keep`: the server's size as it is). Needs the privilege to
 * set global variables; two runs on one server at once must not both fit it
 * (the second would take the first's raised size for the server's own).
 */
async function fitBufferPool(lots: number, server: number): Promise<{ bytes: number; raisedFrom: number | null }> {
  const wanted = Math.ceil((lots * POOL_BYTES_PER_LOT + POOL_HEADROOM) / POOL_STEP) * POOL_STEP;
  if (wanted <= server) return { bytes: server, raisedFrom: null };
  await withServer(async (db) => {
    await db.query('SET GLOBAL innodb_buffer_pool_size = ?', [wanted]);
    const [[page]] = (await db.query('SELECT @@innodb_page_size AS size')) as [Array<{ size: number }>, unknown];
    // Wait until the pool has its pages, should the resize still be going on when SET returns.
    for (let waited = 0; ; waited += 200) {
      const [rows] = (await db.query("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_total'")) as [Array<{ Value: string }>, unknown];
      if (Number(rows[0].Value) * page.size >= wanted * 0.95) break;
      if (waited > 60_000) throw new Error(`the buffer pool did not grow to ${mb(wanted)} within a minute`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  log(`buffer pool raised from ${mb(server)} to ${mb(wanted)} for ${lots.toLocaleString('en')} lots`);
  return { bytes: wanted, raisedFrom: server };
}

async function bufferPoolKept(): Promise<{ bytes: number; raisedFrom: null }> {
  const [[row]] = (await withServer((db) => db.query('SELECT @@innodb_buffer_pool_size AS bytes'))) as [Array<{ bytes: number | string }>, unknown];
  return { bytes: Number(row.bytes), raisedFrom: null };
}

async function run(): Promise<void> {
  log(`scale: ${LOTS} lots; ${SECONDS} s a scenario at ${CONNECTIONS} connections`);
  const seeded: Seeded = args['no-seed']
    ? seededBefore(LOTS)
    : await seed(DB_URL, LOTS, log, { allocations: ALLOCATIONS });

  const lastItemPage = Math.max(1, Math.ceil(seeded.items / 250));
  const lotPage = Math.min(4000, Math.max(1, Math.ceil(LOTS / 250)));
  if (args['no-seed']) {
    await fillListCounters(DB_URL);
    seeded.allocations = await openAllocations();
  }

  const nest = await startCeiling('nest', PORTS.nest);
  const nestCeiling = await drive('ceiling (a): bare NestJS route, constant body', PORTS.nest, () => ({ path: `/item/${randomPartNo(seeded)}` }));
  nest.kill('SIGTERM');
  const raw = await startCeiling('raw', PORTS.raw);
  let rawReceiveSeq = 0;
  let rawAllocateSeq = 0;
  // References of this run's allocations: distinct, and from those of a run before on the same database (--no-seed).
  const runTag = Date.now().toString(36);
  const rawWork: Record<CeilingKey, [string, () => Record<string, unknown>]> = {
    b: ['ceiling (b): node:http + mysql2, point query of GET /Item/<partNo>', () => ({ path: `/item/${randomPartNo(seeded)}` })],
    c1: ['ceiling (c): node:http + mysql2, lot page 1 (250)', () => ({ path: '/lots?page=1&pageSize=250' })],
    // The size of a default page (25), for the lists other than lots, which have no ceiling of their own.
    c25: ['ceiling (c): node:http + mysql2, lot page 1 (25)', () => ({ path: '/lots?page=1&pageSize=25' })],
    cN: [`ceiling (c): node:http + mysql2, lot page ${lotPage} (250)`, () => ({ path: `/lots?page=${lotPage}&pageSize=250` })],
    d: ['ceiling (d): node:http + mysql2, Receive transaction', () => post('/receive', { shortID: shortIdOf(randomPartNo(seeded)), wid: 1 + (rawReceiveSeq++ % 3), units: 1 })],
    // Not a target's ceiling: what Issue's own transaction costs the database, beside (d).
    g: ['ceiling (g): node:http + mysql2, Issue transaction', () => post('/issue', { shortID: shortIdOf(randomPartNo(seeded)), wid: 1 + Math.floor(Math.random() * 3), units: 0.0001 })],
    // Not a target's ceiling either: what Allocate's own transaction costs the database, beside (d).
    h: [
      'ceiling (h): node:http + mysql2, Allocate transaction',
      () => post('/allocate', { shortID: shortIdOf(randomPartNo(seeded)), wid: 1 + Math.floor(Math.random() * 3), units: 0.0001, reference: `RAW-${runTag}-${++rawAllocateSeq}` }),
    ],
  };
  const driveRaw = (key: CeilingKey, label = rawWork[key][0]) => drive(label, PORTS.raw, rawWork[key][1]);
  const raws = {} as Record<CeilingKey, Row>;
  for (const key of Object.keys(rawWork) as CeilingKey[]) raws[key] = await driveRaw(key);
  const stack = await startCeiling('stack', PORTS.stack);
  let stackReceiveSeq = 0;
  const stackReceive = await drive('ceiling (e): NestJS + class-validator + TypeORM, Receive transaction', PORTS.stack, () =>
    post('/receive', { shortID: shortIdOf(randomPartNo(seeded)), wid: 1 + (stackReceiveSeq++ % 3), units: 1 }), { 'content-type': 'application/json' },
  );
  await stopProcess(stack);
  const lotCounterOk = await checkLotCounter();
  const ceilings = [nestCeiling, ...Object.values(raws), stackReceive];
  // A ceiling that answered anything but 2xx measured failures, not the work: the run's ratios would mean nothing.
  const failedCeilings = ceilings.filter((c) => c.errors > 0 || c.non2xx > 0);
  if (failedCeilings.length) {
    log(`ceilings with failed requests: ${failedCeilings.map((c) => c.scenario).join('; ')}`);
    process.exitCode = 1;
  }

  // What this start did with Node's compile cache (src/compile-cache.ts): read it, or write entries (after an install or a build).
  const t0 = Date.now();
  const service = await startService(PORTS.service);
  peak = { service, mb: 0, during: 'start' };
  await waitHealthy(PORTS.service);
  const startMs = Date.now() - t0;
  const written = compileCacheWritten(t0);
  const compileCache = process.env.NODE_DISABLE_COMPILE_CACHE ? 'off' : written > 0 ? `${written} entries written by this start` : 'read only';
  const token = await getToken(PORTS.service, seeded.clientId, seeded.clientSecret);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let receiveSeq = 0;
  let allocateSeq = 0;
  // The next link of the page before the deep one: its cursor seeks the deep page (keyset), as a client walking by next gets it.
  const before = await fetch(`http://127.0.0.1:${PORTS.service}/api/v1/Inventory?page=${Math.max(lotPage - 1, 1)}&pageSize=250`, { headers: auth });
  const deepByCursor = /<([^>]+)>; rel="next"/.exec(before.headers.get('link') ?? '')?.[1] ?? `/api/v1/Inventory?page=${lotPage}&pageSize=250`;

  const hotIssue = () => post('/api/v1/Inventory/Issue', { itemID: seeded.hotItem, units: 1, wid: 1, reasonCode: 2 });
  const same = (key: CeilingKey): CeilingRef => ({ key });
  const near = (key: CeilingKey): CeilingRef => ({ key, near: true });
  // The fourth element: a ceiling driven right after the scenario with the same requests, compared in a second row.
  const scenarios: Array<[string, CeilingRef, () => Record<string, unknown>, { key: CeilingKey; as: string }?]> = [
    ['GET /Item/<partNo>', same('b'), () => ({ path: `/api/v1/Item/${randomPartNo(seeded)}` })],
    ['GET /Item?key=', same('b'), () => ({ path: `/api/v1/Item?key=${shortIdOf(randomPartNo(seeded))}` })],
    ['GET /Item page 1', near('c25'), () => ({ path: '/api/v1/Item' })],
    [`GET /Item page ${lastItemPage} (deep)`, near('c1'), () => ({ path: `/api/v1/Item?page=${lastItemPage}&pageSize=250` })],
    ['GET /Inventory page 1 (250)', same('c1'), () => ({ path: '/api/v1/Inventory?pageSize=250' })],
    [`GET /Inventory page ${lotPage} (250) by cursor`, near('c1'), () => ({ path: deepByCursor })],
    ['GET /Inventory/StockLevels page 1', near('c25'), () => ({ path: '/api/v1/Inventory/StockLevels' })],
    ['GET /Inventory/StockLevels/1 page 1', near('c25'), () => ({ path: '/api/v1/Inventory/StockLevels/1' })],
    ['GET /Inventory/Allocations page 1', near('c25'), () => ({ path: '/api/v1/Inventory/Allocations' })],
    ['GET /Inventory/Transactions page 1', near('c25'), () => ({ path: '/api/v1/Inventory/Transactions' })],
    ['POST /Inventory/Receive', same('d'), () => post('/api/v1/Inventory/Receive', { itemID: shortIdOf(randomPartNo(seeded)), units: 1, wid: 1 + (receiveSeq++ % 3), reasonCode: 1 })],
    [
      // 0.0001 of a random item's available units, so that it never runs short; each its own order line.
      'POST /Inventory/Allocate, distinct items',
      near('d'),
      () =>
        post('/api/v1/Inventory/Allocate', {
          itemID: shortIdOf(randomPartNo(seeded)),
          wid: 1 + Math.floor(Math.random() * 3),
          units: 0.0001,
          reference: `BENCH-${runTag}-${++allocateSeq}`,
        }),
      // How far the database's own work for an Allocate is from (d)'s.
      { key: 'h', as: 'the raw Allocate (h)' },
    ],
    [
      'POST /Inventory/Issue, distinct items',
      near('d'),
      () => post('/api/v1/Inventory/Issue', { itemID: shortIdOf(randomPartNo(seeded)), units: 0.0001, wid: 1 + Math.floor(Math.random() * 3), reasonCode: 2 }),
      // How far the database's own work for an Issue is from (d)'s.
      { key: 'g', as: 'the raw Issue (g)' },
    ],
    ['POST /Inventory/Issue, one item', near('d'), hotIssue],
    [
      'mixed 80% reads / 20% writes',
      { blend: [[0.4, 'b'], [0.4, 'c25', true], [0.2, 'd']] },
      () =>
        Math.random() < 0.8
          ? { path: Math.random() < 0.5 ? `/api/v1/Item/${randomPartNo(seeded)}` : '/api/v1/Inventory/StockLevels' }
          : post('/api/v1/Inventory/Receive', { itemID: shortIdOf(randomPartNo(seeded)), units: 1, wid: 1, reasonCode: 1 }),
    ],
    // Last of these, and run after the Issues of one item with 200 in flight too (runScenario below): a deep OFFSET walks
    // offset + 250 index entries, and at 1,000,000 lots that evicts the buffer pool's hot pages; a scenario right after it
    // would be measured against a cold cache that page 1 did not have.
    [`GET /Inventory page ${lotPage} (250)`, same('cN'), () => ({ path: `/api/v1/Inventory?page=${lotPage}&pageSize=250` })],
  ];
  const rows: Row[] = [];
  // The deep OFFSET page goes last of all the scenarios on the lots (below), after the Issues of one item with 200 in flight.
  const deepPage = scenarios.pop()!;
  const runScenario = async ([name, ref, next, after]: (typeof scenarios)[number]) => {
    // The machine's load drifts over minutes: a scenario with one ceiling is compared with that ceiling driven
    // again just before it (the raw process stays up beside the service), not with the reading at the start.
    const paired = 'key' in ref ? await driveRaw(ref.key, `${rawWork[ref.key][0]}, just before ${name}`) : null;
    if (paired && (paired.errors > 0 || paired.non2xx > 0)) {
      log(`ceiling with failed requests: ${paired.scenario}`);
      process.exitCode = 1;
    }
    const row = await drive(name, PORTS.service, next, auth);
    const ceiling = ceilingOf(ref, raws, lotPage, paired);
    Object.assign(row, { ceiling: ceiling.label, vsCeiling: row.rps / ceiling.rps, vsNest: row.rps / nestCeiling.rps });
    rows.push(row);
    if (after) {
      const then = await driveRaw(after.key, `${rawWork[after.key][0]}, just after ${name}`);
      rows.push({ ...row, scenario: `${name}, against ${after.as}`, ceiling: `(${after.key}) just after: ${then.rps.toFixed(0)} req/s`, vsCeiling: row.rps / then.rps });
    }
    if (name === 'POST /Inventory/Allocate, distinct items') {
      // The target: an Allocate costs no more than a Receive. The Receive row just before, and its own ratio to (d).
      const receive = rows.find((r) => r.scenario === 'POST /Inventory/Receive')!;
      rows.push({
        ...row,
        scenario: `${name}, against the Receive of this run`,
        ceiling: `Receive of this run: ${receive.rps.toFixed(0)} req/s, ${receive.vsCeiling!.toFixed(2)} × (d)`,
        vsCeiling: row.rps / receive.rps,
      });
    }
  };
  for (const scenario of scenarios) await runScenario(scenario);
  // Issues of one item with 200 in flight at once, as the target words it (the row above has --connections):
  // they queue on the item's stock row and for the pool's connections; each takes one unit, the stock checked after the run.
  const hot200 = await driveRaw('d', `${rawWork.d[0]}, just before POST /Inventory/Issue, one item, 200 connections`);
  const hotRow = await drive('POST /Inventory/Issue, one item, 200 connections', PORTS.service, hotIssue, auth, SECONDS, 200);
  rows.push(Object.assign(hotRow, { ceiling: `≈ (d) just before: ${hot200.rps.toFixed(0)} req/s`, vsCeiling: hotRow.rps / hot200.rps, vsNest: hotRow.rps / nestCeiling.rps }));
  await runScenario(deepPage);
  await stopProcess(raw);
  // Receive once more, against the floor of the stack (e): what it costs beyond Nest, validation and TypeORM is the service's own.
  const receiveRow = rows.find((r) => r.scenario === 'POST /Inventory/Receive')!;
  rows.push({ ...receiveRow, scenario: 'POST /Inventory/Receive, against the stack floor (e)', ceiling: '(e)', vsCeiling: receiveRow.rps / stackReceive.rps });
  rows.push(...(await warehouseOperations(seeded, auth, rows, nestCeiling, raws.d)));
  rows.push(...(await metricsCost(seeded, auth, nestCeiling)));
  rows.push(...(await eventsCost(seeded, auth, nestCeiling)));
  rows.push(await deliveryLag(seeded, auth));
  rows.push(...(await feedPage(auth, nestCeiling)));
  const peakRssMb = memoryMb(service, 'VmHWM');
  const peakDuring = peakRssMb > peak!.mb ? 'after the last scenario' : peak!.during;
  const { ledger } = await stopAndCheckLedger(service, DB_URL);

  const report = render(rows, ceilings, { startMs, compileCache, peakRssMb, peakDuring, ledgerOk: ledger.ok, lotCounterOk, seeded, lotPage });
  appendResults(report);
  if (!ledger.ok) {
    log(`ledger invariant FAILED: ${JSON.stringify(ledger.mismatches.slice(0, 5))}`);
    process.exitCode = 1;
  }
  if (!lotCounterOk) process.exitCode = 1;
}

/**
 * The warehouse operations of the extension, after the other scenarios: a
 * Batch of 50 Receives against 50 single Receives of this run (a batch must
 * cost less than half of them: × ceiling ≥ 2), and Count with `expected`,
 * Hold and Release against Receive's transaction (d), the nearest raw work.
 *
 * Count and Hold/Release go round a pool of items (far more than the
 * connections, so that an item's next request leaves after its previous
 * answer), read from the database just before the scenario: the k-th request
 * takes item k mod P in round ⌊k / P⌋. Count alternates up and down by one
 * unit from the units on hand, each time with the `expected` the previous
 * round left (a 409 would show as non-2xx and break that item's chain); Hold
 * and Release alternate one unit.
 */
async function warehouseOperations(seeded: Seeded, auth: Record<string, string>, rows: Row[], nestCeiling: Row, rawReceive: Row): Promise<Row[]> {
  const out: Row[] = [];
  const d = rows.find((r) => r.scenario === 'POST /Inventory/Receive')!;
  const receives = { label: '50 × POST /Inventory/Receive (this run)', rps: d.rps / 50 };
  const vsD = { label: '≈ (d)', rps: rawReceive.rps };
  const measure = async (name: string, ceiling: { label: string; rps: number }, next: (connection: Record<string, unknown>) => Record<string, unknown>, seconds = SECONDS, connections = CONNECTIONS) => {
    const row = await drive(name, PORTS.service, next, auth, seconds, connections);
    out.push(Object.assign(row, { ceiling: ceiling.label, vsCeiling: row.rps / ceiling.rps, vsNest: row.rps / nestCeiling.rps }));
  };

  // A quarter of the connections (8 batches, 400 lines in flight where Receive had 32 requests) for at least 10 s.
  // A batch takes its 50 items' locks at once: the first row draws each connection's items from a share of its own
  // (partNo ≡ its number, modulo the connections), so that batches never queue on one another's locks and the row
  // measures what a batch costs (the target). The second draws them from every item, as independent clients would:
  // with few items (2,000 at 20k lots) most batches then wait for another's locks, which the first row leaves out.
  let batchSeq = 0;
  let batchConnection = 0;
  const batchConnections = Math.max(1, Math.round(CONNECTIONS / 4));
  const share = Math.max(1, Math.floor(seeded.items / batchConnections));
  const batch = (partNo: () => number) =>
    post('/api/v1/Inventory/Batch', {
      operations: Array.from({ length: 50 }, () => ({ op: 'receive', itemID: shortIdOf(partNo()), units: 1, wid: 1 + (batchSeq++ % 3), reasonCode: 1 })),
    });
  await measure(
    `POST /Inventory/Batch, 50 receives (${batchConnections} connections, each on items of its own)`,
    receives,
    (connection) => {
      connection.slot ??= batchConnection++ % batchConnections;
      const slot = connection.slot as number;
      return batch(() => 1 + slot + batchConnections * Math.floor(Math.random() * share));
    },
    Math.max(SECONDS, 10),
    batchConnections,
  );
  await measure(
    `POST /Inventory/Batch, 50 receives (${batchConnections} connections, items of all, waiting on one another's locks; no target)`,
    receives,
    () => batch(() => randomPartNo(seeded)),
    Math.max(SECONDS, 10),
    batchConnections,
  );

  const pool = Math.min(seeded.items, 2000);
  await waitQuiet(DB_URL);
  // Units on hand in warehouse 2, in ten-thousandths (exact: units have at most 4 decimal places).
  const onHand = await withDb(async (db) => {
    const [found] = (await db.query(
      'SELECT i.shortID, COALESCE(SUM(l.units), 0) AS units FROM item i LEFT JOIN lot l ON l.partNo = i.partNo AND l.wID = 2 AND l.active = 1 WHERE i.partNo <= ? GROUP BY i.partNo, i.shortID ORDER BY i.partNo',
      [pool],
    )) as [Array<{ shortID: string; units: string }>, unknown];
    return found.map((r) => ({ itemID: r.shortID, units: Math.round(Number(r.units) * 10_000) }));
  });
  let countSeq = 0;
  await measure('POST /Inventory/Count with expected', vsD, () => {
    const k = countSeq++;
    const { itemID, units } = onHand[k % onHand.length];
    const up = Math.floor(k / onHand.length) % 2 === 0;
    return post('/api/v1/Inventory/Count', { itemID, wid: 2, expected: (up ? units : units + 10_000) / 10_000, counted: (up ? units + 10_000 : units) / 10_000, reasonCode: 3 });
  });

  await waitQuiet(DB_URL);
  // Items with at least one whole unit available in warehouse 3.
  const holdable = await withDb(async (db) => {
    const [found] = (await db.query(
      'SELECT i.shortID FROM lot l JOIN item i ON i.partNo = l.partNo WHERE l.wID = 3 AND l.active = 1 AND l.hold = 0 AND i.partNo <= ? GROUP BY i.partNo, i.shortID HAVING SUM(l.units) >= 1 ORDER BY i.partNo',
      [pool],
    )) as [Array<{ shortID: string }>, unknown];
    return found.map((r) => r.shortID);
  });
  let holdSeq = 0;
  await measure('POST /Inventory/Hold and /Release, 1 unit', vsD, () => {
    const k = holdSeq++;
    const route = Math.floor(k / holdable.length) % 2 === 0 ? 'Hold' : 'Release';
    return post(`/api/v1/Inventory/${route}`, { itemID: holdable[k % holdable.length], wid: 3, units: 1, reasonCode: 4 });
  });
  return out;
}

/** The files of Node's compile cache (every subdirectory: Node version, flags, user) written since `since` (ms); 0 without it. */
function compileCacheWritten(since: number): number {
  const directory = process.env.NODE_COMPILE_CACHE ?? 'node_modules/.cache/node-compile-cache';
  if (!existsSync(directory)) return 0;
  const files = readdirSync(directory, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return files.filter((e) => statSync(join(e.parentPath, e.name)).mtimeMs >= since).length;
}

/** The service as `npm run start:prod` starts it (same Node flags), on `port`, with the bench client's rate limit lifted, loopback webhooks allowed, and `env` on top. */
function startService(port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  return start([...prodNodeFlags(), 'dist/src/main.js'], /"listening"/, {
    DATABASE_URL: DB_URL,
    PORT: String(port),
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    RATE_LIMIT_PER_MINUTE: '10000000',
    // The delivery-lag scenario's receiver listens on loopback.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...env,
  });
}

/**
 * What a setting costs: four pairs of new services, one after the other, the
 * setting on (PORTS.fresh) and off (`offEnv`, PORTS.second), run beside the
 * first. Each pair is started together (which one first alternates by pair),
 * both are warmed up with `request` until steady (`warmUp`), then driven in
 * turn for two rounds of 3 s each with only the fixed `--warmup` before them,
 * the one driven first alternating, so that the machine's noise falls on both
 * alike. Several pairs, not one: two new services with the same settings
 * read from 0.92 to 1.03 of each other here, round after round, a property
 * of each process that more rounds of the same two do not average out.
 * Returns the off row, then the on row (each the mean of its eight rounds),
 * whose "× ceiling" is its req/s over the off row's.
 */
async function settingCost(
  seeded: Seeded,
  auth: Record<string, string>,
  nestCeiling: Row,
  what: { offEnv: Record<string, string>; offLabel: string; onLabel: string; request: () => Record<string, unknown> },
): Promise<Row[]> {
  const pairs = 4;
  const roundsPerPair = 2;
  const seconds = 3;
  const withIt: Row[] = [];
  const without: Row[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    // New services: the service of the scenarios before has run for minutes and holds what they left in its
    // heap and caches, which a new one does not.
    let on: ChildProcess;
    let off: ChildProcess;
    if (pair % 2 === 0) {
      on = await startService(PORTS.fresh);
      off = await startService(PORTS.second, what.offEnv);
    } else {
      off = await startService(PORTS.second, what.offEnv);
      on = await startService(PORTS.fresh);
    }
    try {
      await waitHealthy(PORTS.fresh);
      await waitHealthy(PORTS.second);
      const onAuth = { ...auth, authorization: `Bearer ${await getToken(PORTS.fresh, seeded.clientId, seeded.clientSecret)}` };
      const offAuth = { ...auth, authorization: `Bearer ${await getToken(PORTS.second, seeded.clientId, seeded.clientSecret)}` };
      const label = (side: string, r: number) => `${side}, pair ${pair + 1}, round ${r + 1}`;
      // Both warmed up until steady first; then each round's own warm-up is the fixed --warmup, so that the
      // rounds of the two services stay as close together in time as they are alike.
      await drive(`${what.onLabel}, pair ${pair + 1}, warm-up (not counted)`, PORTS.fresh, what.request, onAuth, seconds);
      await drive(`${what.offLabel}, pair ${pair + 1}, warm-up (not counted)`, PORTS.second, what.request, offAuth, seconds);
      const roundOn = (r: number) => drive(label(what.onLabel, r), PORTS.fresh, what.request, onAuth, seconds, CONNECTIONS, 'fixed');
      const roundOff = (r: number) => drive(label(what.offLabel, r), PORTS.second, what.request, offAuth, seconds, CONNECTIONS, 'fixed');
      // On first in the even rounds, off first in the odd ones: a drift of the machine's speed falls on both alike.
      for (let r = 0; r < roundsPerPair; r++) {
        if (r % 2 === 0) {
          withIt.push(await roundOn(r));
          without.push(await roundOff(r));
        } else {
          without.push(await roundOff(r));
          withIt.push(await roundOn(r));
        }
      }
    } finally {
      await stopProcess(off);
      await stopProcess(on);
    }
  }
  const merged = (name: string, runs: Row[]): Row => ({
    scenario: name,
    rps: runs.reduce((t, x) => t + x.rps, 0) / runs.length,
    p50: Math.max(...runs.map((x) => x.p50)),
    p99: Math.max(...runs.map((x) => x.p99)),
    errors: runs.reduce((t, x) => t + x.errors, 0),
    non2xx: runs.reduce((t, x) => t + x.non2xx, 0),
  });
  const rounds = `${pairs} pairs of new services × ${roundsPerPair} × ${seconds} s, alternating`;
  const offRow = merged(`${what.offLabel} (${rounds})`, without);
  const onRow = merged(`${what.onLabel} (${rounds})`, withIt);
  return [
    Object.assign(offRow, { vsCeiling: NaN, vsNest: offRow.rps / nestCeiling.rps }),
    Object.assign(onRow, { ceiling: 'the row above', vsCeiling: onRow.rps / offRow.rps, vsNest: onRow.rps / nestCeiling.rps }),
  ];
}

/** Metrics on against METRICS_ENABLED=false, on the point read (target: ≥ 0.95, metrics cost under 5%). */
function metricsCost(seeded: Seeded, auth: Record<string, string>, nestCeiling: Row): Promise<Row[]> {
  return settingCost(seeded, auth, nestCeiling, {
    offEnv: { METRICS_ENABLED: 'false' },
    offLabel: 'GET /Item/<partNo>, METRICS_ENABLED=false',
    onLabel: 'GET /Item/<partNo>, metrics on',
    request: () => ({ path: `/api/v1/Item/${randomPartNo(seeded)}` }),
  });
}

/** Receive with events against EVENTS_ENABLED=false (target: ≥ 0.85). */
function eventsCost(seeded: Seeded, auth: Record<string, string>, nestCeiling: Row): Promise<Row[]> {
  let k = 0;
  return settingCost(seeded, auth, nestCeiling, {
    offEnv: { EVENTS_ENABLED: 'false' },
    offLabel: 'POST /Inventory/Receive, EVENTS_ENABLED=false',
    onLabel: 'POST /Inventory/Receive, events on',
    request: () => post('/api/v1/Inventory/Receive', { itemID: shortIdOf(randomPartNo(seeded)), units: 1, wid: 1 + (k++ % 3), reasonCode: 1 }),
  });
}

/**
 * Webhook delivery lag: a subscription of the bench client to stock.received
 * (created with the CLI) posting to a receiver in this process, while
 * Receives arrive at 200 a second, one every 5 ms (`paced`: not autocannon's
 * `overallRate`, which sends them as one burst when each second begins), for
 * the scenario's seconds. The lag of each
 * delivery is the receiver's clock at its arrival less the event's
 * `occurred` (taken in the change's transaction, just before its commit: the
 * lag from the commit is a little less). Waits up to 15 s after the load for
 * every event to arrive. The row's p50/p99 are the lag's (target: p99 ≤ 1 s),
 * its req/s the deliveries per second.
 */
async function deliveryLag(seeded: Seeded, auth: Record<string, string>): Promise<Row> {
  const lags: number[] = [];
  const seen = new Set<string>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; occurred: string };
      if (!seen.has(event.id)) {
        seen.add(event.id);
        lags.push(Date.now() - Date.parse(event.occurred));
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(PORTS.receiver, '127.0.0.1', resolve));
  const cli = (...argv: string[]) =>
    JSON.parse(execFileSync(process.execPath, ['dist/src/cli.js', ...argv], { env: { ...process.env, DATABASE_URL: DB_URL, WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'silent' } }).toString()) as { id: number };
  const subscription = cli('webhook:create', '--client-id', seeded.clientId, '--url', `http://127.0.0.1:${PORTS.receiver}/hook`, '--types', 'stock.received');
  try {
    let k = 0;
    const result = await paced(PORTS.service, 200, SECONDS, CONNECTIONS, () => ({
      headers: { ...auth },
      ...post('/api/v1/Inventory/Receive', { itemID: shortIdOf(randomPartNo(seeded)), units: 1, wid: 1 + (k++ % 3), reasonCode: 1 }),
    }));
    const committed = result.ok;
    for (let waited = 0; seen.size < committed && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    lags.sort((a, b) => a - b);
    const at = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? NaN;
    const row: Row = {
      scenario: `webhook delivery lag at 200 Receives/s (${seen.size} of ${committed} delivered; max ${at(1)} ms)`,
      rps: seen.size / SECONDS,
      p50: at(0.5),
      p99: at(0.99),
      errors: result.errors,
      // Receives answered 2xx whose event never arrived.
      non2xx: result.non2xx + Math.max(0, committed - seen.size),
      ceiling: 'p99 ≤ 1,000 ms',
      vsCeiling: NaN,
      vsNest: NaN,
    };
    log(`${row.scenario}: p50 ${row.p50} ms, p99 ${row.p99} ms`);
    return row;
  } finally {
    cli('webhook:delete', '--id', String(subscription.id));
    await new Promise((resolve) => receiver.close(resolve));
  }
}

/**
 * A ceiling's process (ceilings.ts), with the Node flags the service runs
 * with in production (`start:prod`: its heap's limits): the same work under
 * the same memory budget. `defaultHeap` leaves Node's own limits, for the
 * one reading that shows what the budget costs (the feed page).
 */
function startCeiling(kind: 'nest' | 'raw' | 'stack', port: number, defaultHeap = false): Promise<ChildProcess> {
  return start([...(defaultHeap ? [] : prodNodeFlags()), 'dist/bench/ceilings.js', kind, String(port), ...(kind === 'nest' ? [] : [DB_URL])], /ready/);
}

/**
 * GET /Events, pages of 1,000 from the start, against the raw feed page (f)
 * driven just before it (target: ≥ 0.6). (f) runs under the service's heap
 * limits like every ceiling; it is also driven once with Node's default
 * limits (no target), with the peak RSS that took: a page of 1,000 events
 * is 500 KB and more, and 32 of them at once is where the heap's budget
 * (the service's peak RSS target, 200 MB) shows.
 */
async function feedPage(auth: Record<string, string>, nestCeiling: Row): Promise<Row[]> {
  const unbounded = await startCeiling('raw', PORTS.raw, true);
  let free: Row;
  try {
    free = await drive('ceiling (f) with Node\'s default heap limits', PORTS.raw, () => ({ path: '/events?after=0&limit=1000' }));
    free.scenario += ` (peak RSS ${memoryMb(unbounded, 'VmHWM')} MB)`;
  } finally {
    await stopProcess(unbounded);
  }
  const raw = await startCeiling('raw', PORTS.raw);
  let ceiling: Row;
  try {
    ceiling = await drive('ceiling (f): node:http + mysql2, feed page of 1,000 events', PORTS.raw, () => ({ path: '/events?after=0&limit=1000' }));
  } finally {
    await stopProcess(raw);
  }
  const row = await drive('GET /Events, 1,000 events', PORTS.service, () => ({ path: '/api/v1/Events?after=0&limit=1000' }), auth);
  return [
    Object.assign(free, { vsCeiling: NaN, vsNest: NaN }),
    Object.assign(ceiling, { vsCeiling: NaN, vsNest: NaN }),
    Object.assign(row, { ceiling: '(f)', vsCeiling: row.rps / ceiling.rps, vsNest: row.rps / nestCeiling.rps }),
  ];
}

/**
 * A ceiling's label and req/s for a scenario. A blend is the rate of doing its
 * parts in the scenario's proportions, each at its ceiling's rate: the
 * weighted harmonic mean (the time per request adds up, not the rates).
 */
function ceilingOf(ref: CeilingRef, raws: Record<CeilingKey, Row>, lotPage: number, paired: Row | null = null): { label: string; rps: number } {
  const names: Record<CeilingKey, string> = { b: '(b)', c1: '(c) page 1 (250)', c25: '(c) page 1 (25)', cN: `(c) page ${lotPage} (250)`, d: '(d)', g: '(g)', h: '(h)' };
  const name = (key: CeilingKey) => names[key];
  if ('key' in ref && paired) return { label: `${ref.near ? '≈ ' : ''}${name(ref.key)} just before: ${paired.rps.toFixed(0)} req/s`, rps: paired.rps };
  if ('key' in ref) return { label: `${ref.near ? '≈ ' : ''}${name(ref.key)}`, rps: raws[ref.key].rps };
  const parts = ref.blend.map(([w, key, approx]) => `${Math.round(w * 100)}% ${approx ? '≈ ' : ''}${name(key)}`);
  return { label: parts.join(' + '), rps: 1 / ref.blend.reduce((t, [w, key]) => t + w / raws[key].rps, 0) };
}

/** The server of DB_URL without its database, which the seed drops and creates. */
function withServer<T>(work: (db: mysql.Connection) => Promise<T>): Promise<T> {
  const url = new URL(DB_URL);
  url.pathname = '/';
  return withDb(work, url.toString());
}

async function withDb<T>(work: (db: mysql.Connection) => Promise<T>, uri = DB_URL): Promise<T> {
  const db = await mysql.createConnection({ uri });
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/** The open allocations on a database seeded before (`--no-seed`): those left by the seed and by the runs since. */
function openAllocations(): Promise<number> {
  return withDb(async (db) => {
    const [[row]] = (await db.query("SELECT COUNT(*) AS n FROM allocation WHERE state = 'open'")) as [Array<{ n: number | string }>, unknown];
    return Number(row.n);
  });
}

/** Whether ceiling (d) kept the service's lot counters exact: list_count's sums per warehouse against COUNT(*) of the lots. */
function checkLotCounter(): Promise<boolean> {
  return withDb(async (db) => {
    // One snapshot for both reads, as the ledger check does.
    await db.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    const [kept] = (await db.query(
      "SELECT CAST(scope AS UNSIGNED) AS wID, SUM(n) AS n FROM list_count WHERE list = 'lots' GROUP BY scope HAVING SUM(n) <> 0 ORDER BY CAST(scope AS UNSIGNED)",
    )) as [Array<{ wID: number; n: string }>, unknown];
    const [actual] = (await db.query('SELECT wID, COUNT(*) AS n FROM lot GROUP BY wID ORDER BY wID')) as [Array<{ wID: number; n: number }>, unknown];
    await db.query('COMMIT');
    const ok = JSON.stringify(kept.map((r) => [r.wID, Number(r.n)])) === JSON.stringify(actual.map((r) => [r.wID, Number(r.n)]));
    if (!ok) log(`list_count lots ${JSON.stringify(kept)} differs from the lots ${JSON.stringify(actual)}`);
    return ok;
  });
}

function randomPartNo(s: Seeded): number {
  return 1 + Math.floor(Math.random() * s.items);
}

async function drive(
  name: string,
  port: number,
  /** The next request; `connection`: an object of the autocannon connection that sends it, kept across its requests. */
  next: (connection: Record<string, unknown>) => Record<string, unknown>,
  headers: Record<string, string> = {},
  seconds = SECONDS,
  connections = CONNECTIONS,
  warm: WarmUp = 'until steady',
): Promise<Row> {
  const waited = await waitQuiet(DB_URL);
  if (waited > 1000) log(`waited ${(waited / 1000).toFixed(1)} s for the database to finish the previous scenario's statements`);
  const load = (duration: number) =>
    autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      duration,
      headers,
      // A fresh request each time: reusing autocannon's previous one would carry a POST's
      // Content-Length onto the next GET, and the server would wait for a body never sent.
      // Set per connection (setupClient runs once for each): autocannon's own `context` is reset at every request
      // of a one-request list, so an object the connection keeps across its requests is made here.
      setupClient: (client: { setRequests(requests: unknown[]): void }) => {
        const connection: Record<string, unknown> = {};
        client.setRequests([{ setupRequest: () => ({ method: 'GET', headers: { ...headers }, ...next(connection) }) }]);
      },
    } as unknown as autocannon.Options);
  const warmed = await warmUp(load, warm);
  const result = await load(seconds);
  const row: Row = {
    scenario: name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + (result as unknown as Record<string, number>)['5xx'],
    non2xx: result.non2xx,
  };
  log(`${name}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, errors ${row.errors}, non-2xx ${row.non2xx} (after ${warmed} s of warm-up)`);
  if (port === PORTS.service && peak) {
    const mb = memoryMb(peak.service, 'VmHWM');
    if (mb > peak.mb) Object.assign(peak, { mb, during: name });
  }
  return row;
}

/**
 * Not measured: the same requests until JIT, pools and caches reach their
 * steady state. At least WARMUP seconds (`--warmup 0`: none at all); then,
 * 'until steady', on WARMUP_STEP seconds at a time while a step answers more
 * than WARMUP_GAIN times as many requests a second as the one before, at most
 * WARMUP_MAX seconds in all. A fixed 2 s was not enough for a Receive: under
 * callgrind, after 3,000 Receives V8's optimizing compiler still ran 18 % of
 * the instructions counted over the next 2,000 (2.97 M a request, against
 * 2.38 M after 12,000), and in successive 5 s windows on a fresh service the
 * Receive rose 232, 328, 405, 403 req/s while ceiling (d) rose 465, 631, 680,
 * 631 (docs/quality.md, "Warm-up until the rate stops rising"). Every ceiling
 * warms up the same way. Returns the seconds it took.
 */
async function warmUp(load: (seconds: number) => Promise<autocannon.Result>, warm: WarmUp): Promise<number> {
  if (WARMUP === 0) return 0;
  let before = (await load(WARMUP)).requests.average;
  let warmed = WARMUP;
  while (warm === 'until steady' && warmed + WARMUP_STEP <= WARMUP_MAX) {
    const rate = (await load(WARMUP_STEP)).requests.average;
    warmed += WARMUP_STEP;
    if (!(rate > before * WARMUP_GAIN)) break;
    before = rate;
  }
  return warmed;
}

/** The buffer pool as RESULTS states it. */
function bufferPoolText(): string {
  const pool = bufferPool!;
  if (pool.raisedFrom === null) return `InnoDB buffer pool: ${mb(pool.bytes)}, the server's own.`;
  return `InnoDB buffer pool: ${mb(pool.bytes)} for this run (the server's ${mb(pool.raisedFrom)} raised to hold the seeded tables; set back after).`;
}

/** The warm-up as RESULTS states it. */
function warmUpText(): string {
  if (WARMUP === 0) return 'no warm-up';
  return (
    `a warm-up of at least ${WARMUP} s, longer (in ${WARMUP_STEP} s steps, at most ${WARMUP_MAX} s) while a step answered over ` +
    `${Math.round((WARMUP_GAIN - 1) * 100)} % more requests a second than the one before (the alternating rounds of metrics and events: a warm-up of ${WARMUP} s ` +
    'each, after both services of the pair were warmed up so)'
  );
}

/** The service's peak resident set so far, and the scenario during which it was last raised. */
let peak: { service: ChildProcess; mb: number; during: string } | null = null;

function render(
  rows: Row[],
  ceilings: Row[],
  extra: { startMs: number; compileCache: string; peakRssMb: number; peakDuring: string; ledgerOk: boolean; lotCounterOk: boolean; seeded: Seeded; lotPage: number },
): string {
  const commit = commitLabel();
  const cpu = cpus();
  const seeding = extra.seeded.seedMs === undefined ? 'not seeded by this run' : `${(extra.seeded.seedMs / 1000).toFixed(0)} s`;
  const allocations =
    extra.seeded.seedMs === undefined
      ? `${extra.seeded.allocations.toLocaleString('en')} open allocations at the start (not seeded by this run)`
      : `${extra.seeded.allocations.toLocaleString('en')} open allocations seeded (one unit each, each on a stock row of its own, committed raised to match)`;
  const lines = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${extra.seeded.lots.toLocaleString('en')} lots, ${extra.seeded.items.toLocaleString('en')} items${QUICK ? ' (quick)' : ''}`,
    '',
    `Commit ${commit}; ${cpu.length} × ${cpu[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; MariaDB on the same machine; autocannon on the same machine, ${CONNECTIONS} connections, ${SECONDS} s a scenario after ${warmUpText()}.`,
    `${bufferPoolText()} Seeding: ${seeding}; ${allocations}, there for every scenario (the StockLevels and Allocations pages included). Start to /health 200: ${extra.startMs} ms (Node's compile cache: ${extra.compileCache}). Service peak RSS: ${extra.peakRssMb} MB (reached during ${extra.peakDuring}). Ledger invariant after the run: ${extra.ledgerOk ? 'holds' : 'FAILED'}. Lot counter kept by ceiling (d): ${extra.lotCounterOk ? 'exact' : 'WRONG'}.`,
    '',
    [
      "Ceilings, measured in this run, each under the service's production heap limits (`start:prod`'s Node flags): (a) a bare NestJS route with a constant body; (b)–(d) `node:http` + mysql2 without Nest or TypeORM:",
      "(b) GET /Item/<partNo>'s point query; (c) a lot page as GET /Inventory sends it, newest first, keys from the covering index then",
      `the rows joined to item and warehouse, total from a maintained counter (page 1 of 250 and of 25, page ${extra.lotPage} of 250); (d) Receive's transaction.`,
      '"× ceiling" is the req/s over that of the ceiling named beside it, driven again just before the scenario (the table of ceilings',
      'above is their first reading): the same work, or the nearest where marked ≈ (item and stock',
      "pages, the Allocations page included, against a lot page of their size, Issue and Allocate against Receive's transaction); the mixed scenario's is its parts' ceilings in its",
      'proportions. "× (a)" is over the bare NestJS route. (e) is the floor of this stack for a Receive: (d)\'s statements through a TypeORM',
      'query runner behind a NestJS route whose body class-validator checks, without auth, idempotency, events or metrics. (f) a page of',
      "1,000 events as GET /Events reads it. (g) Issue's transaction for a part of one lot, as (d)'s statements are Receive's (no target:",
      "it tells the database's own cost of an Issue); (h) Allocate's transaction, the same way (no target either). Allocate is also compared",
      "with the Receive of this run, its target being a ratio to (d) no lower than Receive's. Metrics and events: four pairs of new services, the setting on against off, alternating",
      '(× ceiling: on over off, the means of eight rounds each). Webhook delivery lag: p50/p99 are the lag from the change to the receiver, req/s the deliveries a second.',
    ].join('\n'),
    '',
    '| Scenario | req/s | p50 ms | p99 ms | errors (5xx, network) | non-2xx | ceiling | × ceiling | × (a) |',
    '|---|---:|---:|---:|---:|---:|---|---:|---:|',
    ...ceilings.map((r) => `| ${r.scenario} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | | | |`),
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${Number.isNaN(r.vsCeiling) ? '' : r.ceiling} | ${Number.isNaN(r.vsCeiling) ? '' : r.vsCeiling!.toFixed(2)} | ${Number.isNaN(r.vsNest) ? '' : r.vsNest!.toFixed(2)} |`,
    ),
  ];
  return lines.join('\n');
}

runMain(main, log);
