import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { appendResults, commitLabel, getToken, memoryMb, post, prodNodeFlags, runMain, shortIdOf, start, stopAndCheckLedger, waitHealthy } from './harness.js';
import { seed } from './seed.js';

/**
 * npm run soak [-- --minutes 10] [--rate 300] [--window 30] [--lots 20000]:
 * seeds MariaDB, starts the built service as `npm run start:prod` does, and
 * holds a steady mixed load on it (reads, Receive / Issue / Move, retries with
 * an Idempotency-Key, refused requests) for the given time, one autocannon
 * window after another. Each window reports its throughput, p50 and p99, the
 * answers by status, and the service's resident set at its end. At the end:
 * RSS growth from the first window to the last, p99 drift, errors (network,
 * timeouts, 5xx) and the ledger invariant. Exits 1 if there was an error, the
 * RSS grew 10% or more, or the ledger does not hold. Appends to bench/RESULTS.md.
 */
const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '300' },
    window: { type: 'string', default: '30' },
    lots: { type: 'string', default: '20000' },
    connections: { type: 'string', default: '16' },
  },
});
const MINUTES = Number(args.minutes);
const RATE = Number(args.rate);
const WINDOW_S = Number(args.window);
const LOTS = Number(args.lots);
const CONNECTIONS = Number(args.connections);
const DB_URL = process.env.SOAK_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/inventory_soak';
const PORT = 3911;
const RSS_GROWTH_LIMIT = 0.1;
const log = (m: string) => process.stderr.write(`[soak] ${m}\n`);

interface Window {
  n: number;
  endS: number;
  rps: number;
  p50: number;
  p99: number;
  /** Network errors, timeouts and 5xx. */
  errors: number;
  statuses: Record<string, number>;
  rssMb: number;
}

async function main(): Promise<void> {
  for (const [name, v] of Object.entries({ minutes: MINUTES, rate: RATE, window: WINDOW_S, lots: LOTS, connections: CONNECTIONS })) {
    if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  }
  const windows = Math.max(2, Math.round((MINUTES * 60) / WINDOW_S));
  log(`${windows} windows of ${WINDOW_S} s at ${RATE} req/s over ${CONNECTIONS} connections; ${LOTS} lots`);
  const seeded = await seed(DB_URL, LOTS, log);
  const service = await start([...prodNodeFlags(), 'dist/src/main.js'], /"listening"/, {
    DATABASE_URL: DB_URL,
    PORT: String(PORT),
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    RATE_LIMIT_PER_MINUTE: '10000000',
  });
  await waitHealthy(PORT);
  const idleRssMb = memoryMb(service, 'VmRSS');
  const token = await getToken(PORT, seeded.clientId, seeded.clientSecret);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  const item = () => shortIdOf(1 + Math.floor(Math.random() * seeded.items));
  const partNo = () => 1 + Math.floor(Math.random() * seeded.items);
  const wid = () => 1 + Math.floor(Math.random() * 3);
  let seq = 0;
  const sent: Array<Record<string, unknown>> = [];
  /** A keyed Receive, or (one in five) a client's retry of an earlier one: same key, same body; replayed, done once. */
  const keyedReceive = () => {
    if (sent.length > 100 && Math.random() < 0.2) return sent[Math.floor(Math.random() * sent.length)];
    const request = post('/api/v1/Inventory/Receive', { itemID: item(), units: 1, wid: wid(), reasonCode: 1 }, { 'idempotency-key': `soak-${process.pid}-${++seq}` });
    sent.push(request);
    if (sent.length > 5_000) sent.shift();
    return request;
  };
  // Weights are percent of all requests.
  const writes: Array<[number, () => Record<string, unknown>]> = [
    [9, () => post('/api/v1/Inventory/Receive', { itemID: item(), units: 2, wid: wid(), reasonCode: 1, spot: 'S1' })],
    [7, () => post('/api/v1/Inventory/Issue', { itemID: item(), units: 0.5, wid: wid(), reasonCode: 2 })],
    [5, () => { const from = wid(); return post('/api/v1/Inventory/Move', { itemID: item(), units: 0.25, wid: from, shipToWid: 1 + (from % 3) }); }],
    [6, keyedReceive],
  ];
  const reads: Array<[number, () => Record<string, unknown>]> = [
    [30, () => ({ path: `/api/v1/Item/${partNo()}` })],
    [10, () => ({ path: `/api/v1/Item?key=${item()}` })],
    [10, () => ({ path: `/api/v1/Inventory/StockLevels/${wid()}` })],
    [10, () => ({ path: `/api/v1/Inventory?itemID=${item()}&pageSize=50` })],
    [5, () => ({ path: '/api/v1/Item?pageSize=100' })],
    [5, () => ({ path: `/api/v1/Inventory/Transactions?itemID=${item()}` })],
  ];
  // Refused on purpose, to keep the error paths in the mix: 400, 404, 409.
  const refused: Array<[number, () => Record<string, unknown>]> = [
    [1, () => post('/api/v1/Inventory/Receive', { itemID: item(), units: -1, wid: 1 })],
    [1, () => ({ path: '/api/v1/Item/0' })],
    [1, () => post('/api/v1/Inventory/Issue', { itemID: item(), units: 1e9, wid: 1, reasonCode: 2 })],
  ];
  const mix = [...reads, ...writes, ...refused];
  const total = mix.reduce((n, [w]) => n + w, 0);
  const next = () => {
    let roll = Math.random() * total;
    for (const [w, make] of mix) if ((roll -= w) < 0) return make();
    return mix[0][1]();
  };

  const results: Window[] = [];
  const t0 = Date.now();
  for (let n = 1; n <= windows; n++) {
    const result = await autocannon({
      url: `http://127.0.0.1:${PORT}`,
      connections: CONNECTIONS,
      duration: WINDOW_S,
      overallRate: RATE,
      headers,
      // A fresh request each time (a reused one would carry a POST's Content-Length onto a GET).
      requests: [{ setupRequest: () => { const r = next(); return { method: 'GET', ...r, headers: { ...headers, ...((r.headers as object) ?? {}) } }; } }],
    } as unknown as autocannon.Options);
    const raw = result as unknown as { statusCodeStats?: Record<string, { count: number }>; '5xx': number };
    const w: Window = {
      n,
      endS: Math.round((Date.now() - t0) / 1000),
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + raw['5xx'],
      statuses: Object.fromEntries(Object.entries(raw.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])),
      rssMb: memoryMb(service, 'VmRSS'),
    };
    results.push(w);
    log(`window ${n}/${windows} (${w.endS} s): ${w.rps.toFixed(0)} req/s, p50 ${w.p50} ms, p99 ${w.p99} ms, errors ${w.errors}, RSS ${w.rssMb} MB, ${JSON.stringify(w.statuses)}`);
  }
  const peakRssMb = memoryMb(service, 'VmHWM');
  const { ledger, ledgerRows } = await stopAndCheckLedger(service, DB_URL);

  // The first window is the warm-up (JIT, pools, caches): growth and drift are measured from its end.
  const first = results[0];
  const last = results[results.length - 1];
  const growth = (last.rssMb - first.rssMb) / first.rssMb;
  const errors = results.reduce((n, w) => n + w.errors, 0);
  const requests = results.reduce((n, w) => n + Object.values(w.statuses).reduce((a, b) => a + b, 0), 0);
  const report = render(results, { idleRssMb, peakRssMb, growth, errors, requests, ledgerOk: ledger.ok, ledgerRows });
  appendResults(report);
  const failures = [
    errors > 0 && `${errors} errors (network, timeouts, 5xx)`,
    growth >= RSS_GROWTH_LIMIT && `RSS grew ${(growth * 100).toFixed(1)}% (limit ${RSS_GROWTH_LIMIT * 100}%)`,
    !ledger.ok && `ledger invariant FAILED: ${JSON.stringify(ledger.mismatches.slice(0, 5))}`,
  ].filter(Boolean);
  for (const f of failures) log(`FAILED: ${f}`);
  if (failures.length) process.exitCode = 1;
}

function render(
  results: Window[],
  x: { idleRssMb: number; peakRssMb: number; growth: number; errors: number; requests: number; ledgerOk: boolean; ledgerRows: number },
): string {
  const cpu = cpus();
  const first = results[0];
  const last = results[results.length - 1];
  const statuses: Record<string, number> = {};
  for (const w of results) for (const [code, n] of Object.entries(w.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const minutes = (last.endS / 60).toFixed(1);
  return [
    `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — soak, ${minutes} min at ${RATE} req/s`,
    '',
    `Commit ${commitLabel()}; ${cpu.length} × ${cpu[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; MariaDB and autocannon on the same machine; ${CONNECTIONS} connections; ${LOTS.toLocaleString('en')} lots seeded.`,
    `Mix: 70% reads (item by partNo and key, stock levels, lots of an item, item page, ledger of an item), 27% writes (Receive, Issue, Move; a fifth of the keyed Receives are retries of an earlier one, same key and body), 3% refused on purpose (400, 404, 409).`,
    '',
    `Requests: ${x.requests.toLocaleString('en')}; answers by status ${JSON.stringify(statuses)}; errors (network, timeouts, 5xx): ${x.errors}.`,
    `RSS: idle ${x.idleRssMb} MB, after the first window ${first.rssMb} MB, at the end ${last.rssMb} MB: growth ${(x.growth * 100).toFixed(1)}% (limit ${RSS_GROWTH_LIMIT * 100}%); peak ${x.peakRssMb} MB.`,
    `p99: first window ${first.p99} ms, last ${last.p99} ms (drift ×${(last.p99 / Math.max(first.p99, 1)).toFixed(2)}); median of the windows' p99 ${median(results.map((w) => w.p99))} ms.`,
    `Ledger invariant after the run: ${x.ledgerOk ? 'holds' : 'FAILED'} (${x.ledgerRows.toLocaleString('en')} ledger rows).`,
    '',
    '| Window | ends at s | req/s | p50 ms | p99 ms | errors | RSS MB |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((w) => `| ${w.n} | ${w.endS} | ${w.rps.toFixed(0)} | ${w.p50} | ${w.p99} | ${w.errors} | ${w.rssMb} |`),
  ].join('\n');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

runMain(main, log);
