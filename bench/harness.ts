import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import mysql from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { parseDatabaseUrl } from '../src/config/config.js';
import { dataSourceOptions } from '../src/database/data-source.js';
import type { LedgerReport } from '../src/inventory/ledger-check.js';
import { checkLedger } from '../src/inventory/ledger-check.module.js';

/** What `npm run bench` and `npm run soak` share: starting processes, tokens, memory readings. */

/** The Node flags of package.json's start:prod script (`node <flags> dist/src/main.js`). */
export function prodNodeFlags(): string[] {
  const script: string = JSON.parse(readFileSync('package.json', 'utf8')).scripts['start:prod'];
  const flags = /^node (.*?)\s*dist\/src\/main\.js$/.exec(script)?.[1] ?? '';
  return flags.split(/\s+/).filter(Boolean);
}

/** Starts `node <argv>` and resolves once its stdout matches `ready`; later output is drained. */
export function start(argv: string[], ready: RegExp, env: Record<string, string> = {}): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${argv.join(' ')} did not start: ${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        // Past the ready line the output is only drained: keeping and re-scanning it
        // (one log line per request) would cost the harness CPU the service shares.
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        out = '';
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${argv.join(' ')} exited ${code}: ${out}`)));
  });
}

export async function waitHealthy(port: number): Promise<void> {
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function getToken(port: number, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/Token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A field of /proc/<pid>/status in MB: VmHWM (peak resident set so far) or VmRSS (now). */
export function memoryMb(child: ChildProcess, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

export function post(path: string, body: object, headers: Record<string, string> = {}) {
  return { method: 'POST', path, body: JSON.stringify(body), ...(Object.keys(headers).length ? { headers } : {}) };
}

export function shortIdOf(partNo: number): string {
  return `BENCH-${String(partNo).padStart(7, '0')}`;
}

/** What `paced` sent: answers by class (an error: no answer, or none within PACED_TIMEOUT_MS). */
export interface PacedResult {
  ok: number;
  non2xx: number;
  errors: number;
}

/** How long `paced` waits for an answer, as autocannon's default timeout. */
const PACED_TIMEOUT_MS = 10_000;

/**
 * An open-loop load at a steady rate: request i is due at start + i / rate
 * seconds and is sent then, whether or not the ones before it have been
 * answered, over kept-alive connections (at most `connections` at once; one
 * due while all are busy waits for a free one). autocannon's `overallRate` is
 * not steady: each connection sends its share of a second back to back when
 * the second begins, so "200 a second" arrives as one burst of 200 every
 * second. Resolves once every request has its answer, an error, or has
 * waited PACED_TIMEOUT_MS.
 */
export async function paced(port: number, rate: number, seconds: number, connections: number, request: () => { method: string; path: string; body?: string; headers?: Record<string, string> }): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const result: PacedResult = { ok: 0, non2xx: 0, errors: 0 };
  const sent: Array<Promise<void>> = [];
  const start = performance.now();
  const total = Math.round(rate * seconds);
  try {
    for (let i = 0; i < total; i++) {
      const wait = start + (i * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const { method, path, body, headers } = request();
      sent.push(
        new Promise<void>((resolve) => {
          let settled = false;
          const done = (outcome: keyof PacedResult) => {
            if (settled) return;
            settled = true;
            result[outcome]++;
            resolve();
          };
          const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
            res.resume();
            res.on('end', () => done(res.statusCode! >= 200 && res.statusCode! < 300 ? 'ok' : 'non2xx'));
            // Cut off before its end (the socket closed, or the timeout below).
            res.on('close', () => done('errors'));
          });
          req.setTimeout(PACED_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${PACED_TIMEOUT_MS} ms`)));
          req.on('error', () => done('errors'));
          req.end(body);
        }),
      );
    }
    await Promise.all(sent);
    return result;
  } finally {
    agent.destroy();
  }
}

/** The commit measured; `-dirty` when code changed since (the results files do not count). */
export function commitLabel(): string {
  try {
    const head = execSync('git rev-parse --short HEAD').toString().trim();
    return execSync("git status --porcelain -- . ':!bench/RESULTS.md'").toString().trim() ? `${head}-dirty` : head;
  } catch {
    return 'unknown';
  }
}

/**
 * Stops the service with SIGTERM and waits for it to exit, so the requests
 * autocannon left in flight are drained; then checks the ledger invariant on
 * its database and counts the ledger rows.
 */
export async function stopAndCheckLedger(service: ChildProcess, url: string): Promise<{ ledger: LedgerReport; ledgerRows: number }> {
  await stopProcess(service);
  const ds = new DataSource(dataSourceOptions(parseDatabaseUrl(url)));
  await ds.initialize();
  try {
    const ledger = await checkLedger(ds);
    const [{ n }] = (await ds.query('SELECT COUNT(*) AS n FROM ledger_entry')) as Array<{ n: number | string }>;
    return { ledger, ledgerRows: Number(n) };
  } finally {
    await ds.destroy();
  }
}

/**
 * Waits until no statement runs on the bench database, for two readings 250 ms
 * apart: a scenario that saturates the service leaves requests queued for its
 * pool after autocannon stops (the service does not drop a request whose
 * client went away), and that backlog would otherwise be measured as the next
 * scenario's latency. Gives up after `maxMs`. Returns the time waited.
 */
export async function waitQuiet(url: string, maxMs = 300_000): Promise<number> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const db = await mysql.createConnection({ uri: url });
  const t0 = Date.now();
  try {
    for (let quiet = 0; quiet < 2 && Date.now() - t0 < maxMs; ) {
      const [[row]] = (await db.query(
        "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND COMMAND NOT IN ('Sleep', 'Daemon') AND ID <> CONNECTION_ID()",
        [name],
      )) as [Array<{ n: number | string }>, unknown];
      quiet = Number(row.n) === 0 ? quiet + 1 : 0;
      await new Promise((r) => setTimeout(r, 250));
    }
    return Date.now() - t0;
  } finally {
    await db.end();
  }
}

/** Stops a child with SIGTERM and waits for it to exit (at once if it has exited). */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Prints a run's report and appends it to bench/RESULTS.md (created with its heading when missing). */
export function appendResults(report: string): void {
  process.stdout.write(`${report}\n`);
  const file = 'bench/RESULTS.md';
  if (!existsSync(file)) writeFileSync(file, '# Benchmark results\n\nAppended by `npm run bench`, `npm run bench:sqlite` and `npm run soak`; newest last.\n');
  appendFileSync(file, `\n${report}\n`);
}

/** Runs a bench entry point: exits with its `process.exitCode`, or 1 with the error's stack logged. */
export function runMain(main: () => Promise<void>, log: (m: string) => void): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (error: unknown) => {
      log(`failed: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  );
}
