import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { appendResults, commitLabel, getToken, memoryMb, prodNodeFlags, runMain, start, stopAndCheckLedger, stopProcess, waitHealthy } from './harness.js';
import { seedSqlite, type Seeded } from './seed.js';

/**
 * npm run bench:sqlite [-- --small 20000] [-- --large 1000000] [-- --seconds 5] [-- --warmup 2]:
 * the read scenarios of `npm run bench` on the service's embedded SQLite
 * database, at two sizes in one run, to show how a page's cost follows the
 * data (page 1 should cost the same at both). For each size: seeds a SQLite
 * file in a temporary folder with the rows `npm run bench` writes on MariaDB,
 * starts the built service on it in production mode with the rate limit
 * lifted, drives each scenario with autocannon (after `--warmup` seconds of
 * the same requests, not measured), then stops the service and checks the
 * ledger invariant. No ceilings and no targets. Appends the table to
 * bench/RESULTS.md; exits 1 on any error or non-2xx answer.
 */
const { values: args } = parseArgs({
  options: {
    small: { type: 'string', default: '20000' },
    large: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
  },
});
const SIZES = [Number(args.small), Number(args.large)];
for (const lots of SIZES) if (!Number.isInteger(lots) || lots < 1) throw new Error('--small and --large must be positive integers');
const SECONDS = Number(args.seconds);
if (!(SECONDS > 0)) throw new Error('--seconds must be a number of seconds above 0');
const WARMUP = Number(args.warmup);
if (!(WARMUP >= 0)) throw new Error('--warmup must be a number of seconds, 0 or more');
const CONNECTIONS = Number(args.connections);
// Away from `npm run bench`'s ports (3901–3907), so that both can run on one machine.
const PORT = Number(process.env.BENCH_SQLITE_PORT ?? 3911);
const log = (m: string) => process.stderr.write(`[bench:sqlite] ${m}\n`);

interface Row {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

interface SizeRun {
  seeded: Seeded;
  /** The deep lot page, reached by the `next` link of the page before it. */
  lotPage: number;
  startMs: number;
  peakRssMb: number;
  ledgerOk: boolean;
  rows: Map<string, Row>;
}

/** The scenarios, by key; the deep page's label names its page at each size. */
const SCENARIOS = ['item', 'items', 'lots', 'lotsDeep', 'stock', 'stock1', 'ledger'] as const;
type Scenario = (typeof SCENARIOS)[number];

async function main(): Promise<void> {
  log(`sizes: ${SIZES.join(' and ')} lots; ${SECONDS} s a scenario after ${WARMUP} s of warm-up, ${CONNECTIONS} connections`);
  const dir = mkdtempSync(join(tmpdir(), 'inventory-bench-sqlite-'));
  const runs: SizeRun[] = [];
  try {
    for (const lots of SIZES) runs.push(await runSize(join(dir, `bench-${lots}.sqlite`), lots));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const report = render(runs);
  appendResults(report);
  const failed = runs.flatMap((r) => [...r.rows].filter(([, row]) => row.errors > 0 || row.non2xx > 0).map(([name]) => `${name} at ${r.seeded.lots} lots`));
  if (failed.length) {
    log(`scenarios with failed requests: ${failed.join('; ')}`);
    process.exitCode = 1;
  }
  for (const r of runs) {
    if (!r.ledgerOk) {
      log(`ledger invariant FAILED at ${r.seeded.lots} lots`);
      process.exitCode = 1;
    }
  }
}

async function runSize(file: string, lots: number): Promise<SizeRun> {
  log(`${lots} lots: seeding ${file}`);
  const seeded = await seedSqlite(file, lots, log);
  const url = `sqlite:${file}`;
  const lotPage = Math.min(4000, Math.max(1, Math.ceil(lots / 250)));

  const t0 = Date.now();
  const service = await start([...prodNodeFlags(), 'dist/src/main.js'], /"listening"/, {
    DATABASE_URL: url,
    PORT: String(PORT),
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    RATE_LIMIT_PER_MINUTE: '10000000',
  });
  const serverErrors = watchErrors(service);
  try {
    await waitHealthy(PORT);
    const startMs = Date.now() - t0;
    const token = await getToken(PORT, seeded.clientId, seeded.clientSecret);
    const auth = { authorization: `Bearer ${token}` };
    // As `npm run bench`: the next link of the page before the deep one; its cursor seeks the deep page.
    const before = await fetch(`http://127.0.0.1:${PORT}/api/v1/Inventory?page=${Math.max(lotPage - 1, 1)}&pageSize=250`, { headers: auth });
    if (!before.ok) throw new Error(`GET /Inventory page ${lotPage - 1}: ${before.status} ${await before.text()}`);
    const deepByCursor = /<([^>]+)>; rel="next"/.exec(before.headers.get('link') ?? '')?.[1];
    if (lotPage > 1 && !deepByCursor) throw new Error(`GET /Inventory page ${lotPage - 1} has no next link`);

    const randomPartNo = () => 1 + Math.floor(Math.random() * seeded.items);
    const requests: Record<Scenario, () => Record<string, unknown>> = {
      item: () => ({ path: `/api/v1/Item/${randomPartNo()}` }),
      items: () => ({ path: '/api/v1/Item' }),
      lots: () => ({ path: '/api/v1/Inventory?pageSize=250' }),
      lotsDeep: () => ({ path: deepByCursor ?? '/api/v1/Inventory?pageSize=250' }),
      stock: () => ({ path: '/api/v1/Inventory/StockLevels' }),
      stock1: () => ({ path: '/api/v1/Inventory/StockLevels/1' }),
      ledger: () => ({ path: '/api/v1/Inventory/Transactions' }),
    };
    const rows = new Map<string, Row>();
    for (const scenario of SCENARIOS) {
      const row = await drive(requests[scenario], auth);
      rows.set(scenario, row);
      log(
        `${lots} lots, ${label(scenario, [lotPage])}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, errors ${row.errors}, non-2xx ${row.non2xx}`,
      );
      for (const line of serverErrors.splice(0)) log(`service logged: ${line}`);
    }
    const peakRssMb = memoryMb(service, 'VmHWM');
    const { ledger } = await stopAndCheckLedger(service, url);
    for (const line of serverErrors.splice(0)) log(`service logged: ${line}`);
    if (!ledger.ok) log(`ledger check at ${lots} lots: ${JSON.stringify({ ...ledger, mismatches: ledger.mismatches.slice(0, 5) })}`);
    return { seeded, lotPage, startMs, peakRssMb, ledgerOk: ledger.ok, rows };
  } finally {
    // Already stopped by the ledger check unless a scenario failed.
    await stopProcess(service);
  }
}

/**
 * The service's error and fatal log lines (pino levels 50 and 60), the first
 * few of each scenario, so that a 5xx shows its cause in the run's output.
 * Only a substring test per chunk: the request lines pass unparsed.
 */
function watchErrors(service: ChildProcess): string[] {
  const lines: string[] = [];
  service.stdout?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    if (!text.includes('"level":50') && !text.includes('"level":60')) return;
    for (const line of text.split('\n')) {
      if (lines.length < 5 && (line.includes('"level":50') || line.includes('"level":60'))) lines.push(line.slice(0, 2000));
    }
  });
  return lines;
}

async function drive(next: () => Record<string, unknown>, headers: Record<string, string>): Promise<Row> {
  const load = (duration: number) =>
    autocannon({
      url: `http://127.0.0.1:${PORT}`,
      connections: CONNECTIONS,
      duration,
      headers,
      requests: [{ setupRequest: () => ({ method: 'GET', headers: { ...headers }, ...next() }) }],
    } as unknown as autocannon.Options);
  // Not measured: JIT, caches and SQLite's page cache reach their steady state first.
  if (WARMUP > 0) {
    await load(WARMUP);
    await settle();
  }
  const result = await load(SECONDS);
  await settle();
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + (result as unknown as Record<string, number>)['5xx'],
    non2xx: result.non2xx,
  };
}

/**
 * Lets the requests autocannon left in flight finish before the next load: the
 * service answers them whether or not their client is still there, and on
 * SQLite they queue in the service's process, not in a database server. Two
 * /health answers in a row under 20 ms, or 10 s at most.
 */
async function settle(): Promise<void> {
  const until = Date.now() + 10_000;
  for (let quick = 0; quick < 2 && Date.now() < until; ) {
    const t = Date.now();
    await fetch(`http://127.0.0.1:${PORT}/health`).then((r) => r.arrayBuffer(), () => null);
    quick = Date.now() - t < 20 ? quick + 1 : 0;
  }
}

function label(scenario: Scenario, lotPages: number[]): string {
  switch (scenario) {
    case 'item':
      return 'GET /Item/<partNo>';
    case 'items':
      return 'GET /Item page 1';
    case 'lots':
      return 'GET /Inventory page 1 (250)';
    case 'lotsDeep':
      return `GET /Inventory page ${lotPages.join(' / ')} (250) by cursor`;
    case 'stock':
      return 'GET /Inventory/StockLevels page 1';
    case 'stock1':
      return 'GET /Inventory/StockLevels/1 page 1';
    case 'ledger':
      return 'GET /Inventory/Transactions page 1';
  }
}

function render(runs: SizeRun[]): string {
  const [small, large] = runs;
  const n = (x: number) => x.toLocaleString('en');
  const k = (lots: number) => (lots % 1000 === 0 ? `${lots / 1000}k` : n(lots));
  const cpu = cpus();
  const each = (f: (r: SizeRun) => string) => runs.map((r) => `${f(r)} at ${k(r.seeded.lots)}`).join(', ');
  const cells = (r: Row) => `${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx}`;
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '');
  const lines = [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — SQLite, ${n(small.seeded.lots)} and ${n(large.seeded.lots)} lots`,
    '',
    `Commit ${commitLabel()}; ${cpu.length} × ${cpu[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; \`npm run bench:sqlite\`: ` +
      `the service on a SQLite file (items a tenth of the lots, 3 warehouses), autocannon on the same machine, ${CONNECTIONS} connections, ` +
      `${SECONDS} s a scenario after ${WARMUP} s of warm-up. Seeding: ${each((r) => `${((r.seeded.seedMs ?? 0) / 1000).toFixed(1)} s`)}. ` +
      `Start to /health 200: ${each((r) => `${r.startMs} ms`)}. Service peak RSS: ${each((r) => `${r.peakRssMb} MB`)}. ` +
      `Ledger invariant after the run: ${runs.every((r) => r.ledgerOk) ? 'holds' : 'FAILED'}.`,
    '',
    `| Scenario | req/s ${k(small.seeded.lots)} | p50 ms | p99 ms | errors (5xx, network) | non-2xx | req/s ${k(large.seeded.lots)} | p50 ms | p99 ms | errors (5xx, network) | non-2xx | req/s ${k(large.seeded.lots)} / ${k(small.seeded.lots)} | p50 ${k(large.seeded.lots)} / ${k(small.seeded.lots)} |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...SCENARIOS.map((s) => {
      const a = small.rows.get(s)!;
      const b = large.rows.get(s)!;
      return `| ${label(s, [small.lotPage, large.lotPage])} | ${cells(a)} | ${cells(b)} | ${ratio(b.rps, a.rps)} | ${ratio(b.p50, a.p50)} |`;
    }),
  ];
  return lines.join('\n');
}

runMain(main, log);
