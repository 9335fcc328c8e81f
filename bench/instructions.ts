import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getToken, prodNodeFlags, runMain, shortIdOf, stopProcess } from './harness.js';
import { seed, type Seeded, seededBefore } from './seed.js';

/**
 * npm run bench:instructions [-- --scenario point,receive] [-- --requests 2000] [-- --no-seed]:
 * what a request costs in CPU instructions, a figure the machine's noise does
 * not move (repeatable within 2–3 %, where req/s moves by ±15 % between
 * alternating runs). Each process runs under `valgrind --tool=callgrind` with
 * its counting off; after a warm-up of 3,000 requests (32 at a time, so that
 * V8 has compiled the hot code) counting is switched on (`callgrind_control
 * -i on`) for `--requests` requests, then off; the total over the requests
 * is the figure. Instructions of the kernel (system calls) are not counted.
 * Seeds 20,000 lots first, like `npm run bench -- --lots 20000`.
 *
 * Scenarios: `point` (GET /Item/<partNo>), `receive` (POST /Inventory/Receive),
 * `issue` (POST /Inventory/Issue of 0.0001 on distinct items), `allocate`
 * (POST /Inventory/Allocate of 0.0001 on distinct items, each its own
 * reference), `lots` (GET
 * /Inventory page 1 of 250); a setting's cost: `point-no-metrics`
 * (METRICS_ENABLED=false), `receive-no-events` (EVENTS_ENABLED=false),
 * `receive-no-log` (LOG_LEVEL=warn: no request log line), `receive-bare` (all
 * three off); and the ceilings of the same work from ceilings.ts: `raw-point`
 * (b), `raw-receive` (d), `raw-issue` (g), `raw-allocate` (h), `raw-lots` (c), `nest` (a), and
 * `stack-receive` (e), the stack's floor for a Receive.
 * Needs valgrind (Debian's package `valgrind`).
 */
const { values: args } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'point,receive' },
    requests: { type: 'string', default: '2000' },
    'no-seed': { type: 'boolean', default: false },
  },
});
const DB_URL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/inventory_bench';
const PORT = Number(process.env.BENCH_PORT ?? 3901);
const REQUESTS = Number(args.requests);
const LOTS = 20_000;
const WARMUP = 3000;
const CONCURRENCY = 32;
const log = (m: string) => process.stderr.write(`[instructions] ${m}\n`);

type Send = (k: number) => { path: string; method?: string; body?: string };
interface Scenario {
  what: string;
  argv: string[];
  auth: boolean;
  send: Send;
  /** Variables set for the process besides the common ones (a setting off). */
  env?: Record<string, string>;
}

function scenarios(s: Seeded): Record<string, Scenario> {
  const partNo = (k: number) => 1 + ((k * 7919) % s.items);
  const service = [...prodNodeFlags(), 'dist/src/main.js'];
  const raw = ['dist/bench/ceilings.js', 'raw', String(PORT), DB_URL];
  const pointRead: Send = (k) => ({ path: `/api/v1/Item/${partNo(k)}` });
  // Distinct from the references of a run before on the same database (--no-seed).
  const runTag = Date.now().toString(36);
  const receive: Send = (k) => ({ path: '/api/v1/Inventory/Receive', method: 'POST', body: JSON.stringify({ itemID: shortIdOf(partNo(k)), units: 1, wid: 1 + (k % 3), reasonCode: 1 }) });
  return {
    point: { what: 'GET /Item/<partNo>', argv: service, auth: true, send: pointRead },
    receive: { what: 'POST /Inventory/Receive', argv: service, auth: true, send: receive },
    'point-no-metrics': { what: 'GET /Item/<partNo>, METRICS_ENABLED=false', argv: service, auth: true, env: { METRICS_ENABLED: 'false' }, send: pointRead },
    'receive-no-events': { what: 'POST /Inventory/Receive, EVENTS_ENABLED=false', argv: service, auth: true, env: { EVENTS_ENABLED: 'false' }, send: receive },
    'receive-no-log': { what: 'POST /Inventory/Receive, LOG_LEVEL=warn (no request log line)', argv: service, auth: true, env: { LOG_LEVEL: 'warn' }, send: receive },
    'receive-bare': {
      what: 'POST /Inventory/Receive, EVENTS_ENABLED=false, METRICS_ENABLED=false, LOG_LEVEL=warn',
      argv: service,
      auth: true,
      env: { EVENTS_ENABLED: 'false', METRICS_ENABLED: 'false', LOG_LEVEL: 'warn' },
      send: receive,
    },
    issue: {
      what: 'POST /Inventory/Issue, distinct items',
      argv: service,
      auth: true,
      send: (k) => ({ path: '/api/v1/Inventory/Issue', method: 'POST', body: JSON.stringify({ itemID: shortIdOf(partNo(k)), units: 0.0001, wid: 1 + (k % 3), reasonCode: 2 }) }),
    },
    allocate: {
      what: 'POST /Inventory/Allocate, distinct items',
      argv: service,
      auth: true,
      send: (k) => ({
        path: '/api/v1/Inventory/Allocate',
        method: 'POST',
        body: JSON.stringify({ itemID: shortIdOf(partNo(k)), wid: 1 + (k % 3), units: 0.0001, reference: `BENCH-${runTag}-${k}` }),
      }),
    },
    lots: { what: 'GET /Inventory page 1 (250)', argv: service, auth: true, send: () => ({ path: '/api/v1/Inventory?page=1&pageSize=250' }) },
    'raw-point': { what: "ceiling (b): node:http + mysql2, GET /Item/<partNo>'s point query", argv: raw, auth: false, send: (k) => ({ path: `/item/${partNo(k)}` }) },
    'raw-issue': {
      what: "ceiling (g): node:http + mysql2, Issue's transaction",
      argv: raw,
      auth: false,
      send: (k) => ({ path: '/issue', method: 'POST', body: JSON.stringify({ shortID: shortIdOf(partNo(k)), wid: 1 + (k % 3), units: 0.0001 }) }),
    },
    'raw-allocate': {
      what: "ceiling (h): node:http + mysql2, Allocate's transaction",
      argv: raw,
      auth: false,
      send: (k) => ({ path: '/allocate', method: 'POST', body: JSON.stringify({ shortID: shortIdOf(partNo(k)), wid: 1 + (k % 3), units: 0.0001, reference: `RAW-${runTag}-${k}` }) }),
    },
    'raw-receive': {
      what: "ceiling (d): node:http + mysql2, Receive's transaction",
      argv: raw,
      auth: false,
      send: (k) => ({ path: '/receive', method: 'POST', body: JSON.stringify({ shortID: shortIdOf(partNo(k)), wid: 1 + (k % 3), units: 1 }) }),
    },
    'stack-receive': {
      what: "ceiling (e): NestJS + class-validator + TypeORM, Receive's transaction",
      argv: ['dist/bench/ceilings.js', 'stack', String(PORT), DB_URL],
      auth: false,
      send: (k) => ({ path: '/receive', method: 'POST', body: JSON.stringify({ shortID: shortIdOf(partNo(k)), wid: 1 + (k % 3), units: 1 }) }),
    },
    'raw-lots': { what: 'ceiling (c): node:http + mysql2, lot page 1 (250)', argv: raw, auth: false, send: () => ({ path: '/lots?page=1&pageSize=250' }) },
    nest: { what: 'ceiling (a): bare NestJS route, constant body', argv: ['dist/bench/ceilings.js', 'nest', String(PORT)], auth: false, send: (k) => ({ path: `/item/${partNo(k)}` }) },
  };
}

/** `count` requests, CONCURRENCY at a time; throws on any answer that is not 2xx. */
async function drive(send: Send, headers: Record<string, string>, from: number, count: number): Promise<void> {
  let next = from;
  const end = from + count;
  const worker = async () => {
    while (next < end) {
      const { path, method = 'GET', body } = send(next++);
      const res = await fetch(`http://127.0.0.1:${PORT}${path}`, { method, body, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) } });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function waitListening(child: ChildProcess): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode} before listening`);
    const up = await fetch(`http://127.0.0.1:${PORT}/`).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('did not listen within 5 minutes');
}

async function measure(s: Seeded, name: string, scenario: Scenario): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'callgrind-'));
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'out')}`, process.execPath, ...scenario.argv], {
    env: { ...process.env, DATABASE_URL: DB_URL, PORT: String(PORT), LOG_LEVEL: 'info', NODE_ENV: 'production', RATE_LIMIT_PER_MINUTE: '10000000', ...scenario.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  // valgrind's summary comes as the process ends: read to the end of its stderr, not only to its exit.
  const stderrRead = new Promise<void>((resolve) => child.stderr?.once('close', () => resolve()));
  try {
    await waitListening(child);
    const headers: Record<string, string> = scenario.auth ? { authorization: `Bearer ${await getToken(PORT, s.clientId, s.clientSecret)}` } : {};
    log(`${name}: warming up (${WARMUP} requests)`);
    await drive(scenario.send, headers, 0, WARMUP);
    execFileSync('callgrind_control', ['-i', 'on', String(child.pid)], { stdio: 'ignore' });
    await drive(scenario.send, headers, WARMUP, REQUESTS);
    execFileSync('callgrind_control', ['-i', 'off', String(child.pid)], { stdio: 'ignore' });
  } finally {
    await stopProcess(child);
    await stderrRead;
    rmSync(dir, { recursive: true, force: true });
  }
  // valgrind's summary at exit: "Collected : <n>", the instructions counted while counting was on.
  const collected = /Collected\s*:\s*(\d+)/.exec(stderr);
  if (!collected) throw new Error(`${name}: no instruction count from valgrind:\n${stderr.slice(-2000)}`);
  return Number(collected[1]) / REQUESTS;
}

async function main(): Promise<void> {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  }
  const s: Seeded = args['no-seed'] ? seededBefore(LOTS) : await seed(DB_URL, LOTS, log);
  const all = scenarios(s);
  const names = String(args.scenario).split(',').filter(Boolean);
  for (const name of names) if (!all[name]) throw new Error(`unknown scenario ${name}; known: ${Object.keys(all).join(', ')}`);
  const lines: string[] = [];
  for (const name of names) {
    const perRequest = await measure(s, name, all[name]);
    const line = `${all[name].what}: ${(perRequest / 1e6).toFixed(3)} M instructions a request (${REQUESTS} requests, ${CONCURRENCY} at a time)`;
    log(line);
    lines.push(line);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

runMain(main, log);
