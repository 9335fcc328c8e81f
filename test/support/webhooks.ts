import { execFile, spawnSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a receiver got: its headers and raw body. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback (node:http): records every POST and answers `status(n)` to the n-th (from 1). */
export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(status: (n: number, req: Received) => number | { status: number; headers: Record<string, string> } = () => 204): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(got);
      const answer = status(received.length, got);
      if (typeof answer === 'number') res.writeHead(answer).end();
      else res.writeHead(answer.status, answer.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls `check` until it is true (every 50 ms), failing after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000, what = 'the condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the admin CLI printed and how it ended, with its stdout read as JSON on demand. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  json(): Record<string, unknown>;
}

/** How the CLI is started, by `cli` and `cliAsync` alike. */
function cliCommand(databaseUrl: string, args: string[], env: Record<string, string>) {
  return { file: process.execPath, argv: ['dist/src/cli.js', ...args], options: { env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, ...env }, encoding: 'utf8' as const, timeout: 60_000 } };
}

function cliRun(args: string[], status: number | null, signal: string | null, stdout: string, stderr: string): CliRun {
  const json = () => {
    try {
      return JSON.parse(stdout) as Record<string, unknown>;
    } catch {
      throw new Error(`${args[0]} answered no JSON: status ${status}, signal ${signal}, stdout ${JSON.stringify(stdout)}, stderr ${JSON.stringify(stderr)}`);
    }
  };
  return { status, stdout, stderr, json };
}

/** The admin CLI as an operator runs it (the built dist/src/cli.js), on the database given. */
export function cli(databaseUrl: string, args: string[], env: Record<string, string> = {}): CliRun {
  const { file, argv, options } = cliCommand(databaseUrl, args, env);
  const r = spawnSync(file, argv, options);
  return cliRun(args, r.status, r.signal, r.stdout, r.stderr);
}

/**
 * The admin CLI as `cli` runs it, without blocking this process: for a
 * command that writes rows the test's own service may be holding in a
 * transaction at that moment (a relay recording its deliveries, say).
 * `cli` (spawnSync) stops this process's event loop until the command ends,
 * so such a transaction could never commit and the command would wait for
 * its lock until it timed out.
 */
export function cliAsync(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const { file, argv, options } = cliCommand(databaseUrl, args, env);
  return new Promise((resolve) => {
    execFile(file, argv, options, (error, stdout, stderr) => {
      resolve(cliRun(args, error ? (typeof error.code === 'number' ? error.code : null) : 0, error?.signal ?? null, stdout, stderr));
    });
  });
}

/** A receiver on loopback that accepts every connection and request and never answers (a hung endpoint). */
export async function startHangingReceiver(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((req) => {
    requests++;
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hangs`,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
