import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { commitLabel, getToken, memoryMb, post, prodNodeFlags, shortIdOf, start, stopAndCheckLedger, waitHealthy } from './harness.js';
import { seed, type Seeded } from './seed.js';

/**
 * npm run bench [-- --lots 1000000] [-- --quick]: seeds MariaDB, starts the
 * built service in production mode with the bench client's rate limit lifted,
 * drives it over loopback with autocannon and compares every scenario with two
 * ceilings measured in the same run. Appends the results to bench/RESULTS.md.
 */
const { values: args } = parseArgs({
  options: {
    lots: { type: 'string' },
    quick: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '32' },
    'no-seed': { type: 'boolean', default: false },
  },
});
const QUICK = args.quick === true;
const LOTS = Number(args.lots ?? (QUICK ? 10_000 : 1_000_000));
const SECONDS = Number(args.seconds ?? (QUICK ? 4 : 15));
const CONNECTIONS = Number(args.connections);
const DB_URL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/inventory_bench';
const PORTS = { service: 3901, nest: 3902, raw: 3903 };
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  vsNest?: number;
  vsRaw?: number;
}

async function main(): Promise<void> {
  log(`scale: ${LOTS} lots; ${SECONDS} s a scenario at ${CONNECTIONS} connections`);
  const seeded: Seeded = args['no-seed']
    ? { items: Math.floor(LOTS / 10), lots: LOTS, clientId: 'c_bench', clientSecret: 'bench-secret-not-for-production-000000000', hotItem: 'BENCH-0000001' }
    : await seed(DB_URL, LOTS, log);

  const ceilings: Row[] = [];
  for (const kind of ['nest', 'raw'] as const) {
    const child = await start(['dist/bench/ceilings.js', kind, String(PORTS[kind]), DB_URL], /ready/);
    ceilings.push(await drive(`ceiling (${kind === 'nest' ? 'a' : 'b'}): ${kind === 'nest' ? 'bare NestJS route, constant body' : 'node:http + mysql2 point query'}`, PORTS[kind], () => ({
      path: `/item/${randomPartNo(seeded)}`,
    })));
    child.kill('SIGTERM');
  }
  const [nestCeiling, rawCeiling] = ceilings;

  const t0 = Date.now();
  // Started the way `npm run start:prod` starts it, with the same Node flags.
  const service = await start([...prodNodeFlags(), 'dist/src/main.js'], /"listening"/, {
    DATABASE_URL: DB_URL,
    PORT: String(PORTS.service),
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    RATE_LIMIT_PER_MINUTE: '10000000',
  });
  await waitHealthy(PORTS.service);
  const startMs = Date.now() - t0;
  const token = await getToken(PORTS.service, seeded.clientId, seeded.clientSecret);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const lastItemPage = Math.max(1, Math.ceil(seeded.items / 250));
  const lotPage = Math.min(4000, Math.max(1, Math.ceil(LOTS / 250)));
  let receiveSeq = 0;

  const scenarios: Array<[string, () => Record<string, unknown>]> = [
    ['GET /Item/<partNo>', () => ({ path: `/api/v1/Item/${randomPartNo(seeded)}` })],
    ['GET /Item?key=', () => ({ path: `/api/v1/Item?key=${shortIdOf(randomPartNo(seeded))}` })],
    ['GET /Item page 1', () => ({ path: '/api/v1/Item' })],
    [`GET /Item page ${lastItemPage} (deep)`, () => ({ path: `/api/v1/Item?page=${lastItemPage}&pageSize=250` })],
    ['GET /Inventory page 1 (250)', () => ({ path: '/api/v1/Inventory?pageSize=250' })],
    [`GET /Inventory page ${lotPage} (250)`, () => ({ path: `/api/v1/Inventory?page=${lotPage}&pageSize=250` })],
    ['GET /Inventory/StockLevels page 1', () => ({ path: '/api/v1/Inventory/StockLevels' })],
    ['GET /Inventory/StockLevels/1 page 1', () => ({ path: '/api/v1/Inventory/StockLevels/1' })],
    ['POST /Inventory/Receive', () => post('/api/v1/Inventory/Receive', { itemID: shortIdOf(randomPartNo(seeded)), units: 1, wid: 1 + (receiveSeq++ % 3), reasonCode: 1 })],
    ['POST /Inventory/Issue, distinct items', () => post('/api/v1/Inventory/Issue', { itemID: shortIdOf(randomPartNo(seeded)), units: 0.0001, wid: 1 + Math.floor(Math.random() * 3), reasonCode: 2 })],
    ['POST /Inventory/Issue, one item', () => post('/api/v1/Inventory/Issue', { itemID: seeded.hotItem, units: 1, wid: 1, reasonCode: 2 })],
    [
      'mixed 80% reads / 20% writes',
      () =>
        Math.random() < 0.8
          ? { path: Math.random() < 0.5 ? `/api/v1/Item/${randomPartNo(seeded)}` : '/api/v1/Inventory/StockLevels' }
          : post('/api/v1/Inventory/Receive', { itemID: shortIdOf(randomPartNo(seeded)), units: 1, wid: 1, reasonCode: 1 }),
    ],
  ];
  const rows: Row[] = [];
  for (const [name, next] of scenarios) {
    const row = await drive(name, PORTS.service, next, auth);
    row.vsNest = row.rps / nestCeiling.rps;
    row.vsRaw = row.rps / rawCeiling.rps;
    rows.push(row);
  }
  const peakRssMb = memoryMb(service, 'VmHWM');
  const { ledger } = await stopAndCheckLedger(service, DB_URL);

  const report = render(rows, ceilings, { startMs, peakRssMb, ledgerOk: ledger.ok, seeded });
  process.stdout.write(`${report}\n`);
  const file = 'bench/RESULTS.md';
  if (!existsSync(file)) writeFileSync(file, '# Benchmark results\n\nAppended by `npm run bench`; newest last.\n');
  appendFileSync(file, `\n${report}\n`);
  if (!ledger.ok) {
    log(`ledger invariant FAILED: ${JSON.stringify(ledger.mismatches.slice(0, 5))}`);
    process.exitCode = 1;
  }
}

function randomPartNo(s: Seeded): number {
  return 1 + Math.floor(Math.random() * s.items);
}

async function drive(name: string, port: number, next: () => Record<string, unknown>, headers: Record<string, string> = {}): Promise<Row> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers,
    // A fresh request each time: reusing autocannon's previous one would carry a POST's
    // Content-Length onto the next GET, and the server would wait for a body never sent.
    requests: [{ setupRequest: () => ({ method: 'GET', headers: { ...headers }, ...next() }) }],
  } as unknown as autocannon.Options);
  const row: Row = {
    scenario: name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + (result as unknown as Record<string, number>)['5xx'],
    non2xx: result.non2xx,
  };
  log(`${name}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, errors ${row.errors}, non-2xx ${row.non2xx}`);
  return row;
}

function render(rows: Row[], ceilings: Row[], extra: { startMs: number; peakRssMb: number; ledgerOk: boolean; seeded: Seeded }): string {
  const commit = commitLabel();
  const cpu = cpus();
  const lines = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${extra.seeded.lots.toLocaleString('en')} lots, ${extra.seeded.items.toLocaleString('en')} items${QUICK ? ' (quick)' : ''}`,
    '',
    `Commit ${commit}; ${cpu.length} × ${cpu[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; MariaDB on the same machine; autocannon on the same machine, ${CONNECTIONS} connections, ${SECONDS} s a scenario.`,
    `Start to /health 200: ${extra.startMs} ms. Service peak RSS: ${extra.peakRssMb} MB. Ledger invariant after the run: ${extra.ledgerOk ? 'holds' : 'FAILED'}.`,
    '',
    '| Scenario | req/s | p50 ms | p99 ms | errors (5xx, network) | non-2xx | × ceiling (a) | × ceiling (b) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...ceilings.map((r) => `| ${r.scenario} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | | |`),
    ...rows.map((r) => `| ${r.scenario} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${r.vsNest!.toFixed(2)} | ${r.vsRaw!.toFixed(2)} |`),
  ];
  return lines.join('\n');
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    log(`failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
