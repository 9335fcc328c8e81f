import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { closeGracefully } from '../src/bootstrap.js';
import { createTestDatabase, startTestApp, testDatabaseKind, type TestDatabase } from './app.factory.js';
import { ProbeModule } from './support/probe.module.js';

// These start the built service (`npm test` builds it first) as a new user would.
const MAIN = 'dist/src/main.js';

function run(env: Record<string, string>): ChildProcess {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build`);
  return spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env }, stdio: 'pipe' });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Waits until `done()`; fails early, with everything the process said, if it exits first. */
async function waitFor(done: () => boolean, show: () => string, child?: ChildProcess, ms = 45_000): Promise<void> {
  const until = Date.now() + ms;
  const stderr = collect(child?.stderr ?? null);
  while (!done()) {
    if (child && child.exitCode !== null) throw new Error(`exited ${child.exitCode}; stdout: ${show()} stderr: ${stderr()}`);
    if (Date.now() > until) throw new Error(`timed out; stdout: ${show()} stderr: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function collect(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

describe('the service process', () => {
  it('refuses to start on a bad DATABASE_URL, naming it', async () => {
    const child = run({ DATABASE_URL: 'nonsense' });
    const stderr = collect(child.stderr);
    const { code } = await exited(child);
    expect(code).not.toBe(0);
    expect(stderr()).toContain('DATABASE_URL');
  });

  it('refuses to start on a negative TOKEN_TTL_SECONDS, naming it', async () => {
    const child = run({ TOKEN_TTL_SECONDS: '-1' });
    const stderr = collect(child.stderr);
    expect((await exited(child)).code).toBe(1);
    expect(stderr()).toContain('TOKEN_TTL_SECONDS');
  });

  describe(`on ${testDatabaseKind()}`, () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(() => db.drop());

    it('prints the first start\'s admin credentials once on stdout, whatever LOG_LEVEL is, and never again', async () => {
      const first = run({ DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'silent' });
      const out = collect(first.stdout);
      await waitFor(() => out().includes('"bootstrap"'), () => out(), first);
      const exit = exited(first);
      first.kill('SIGTERM');
      expect((await exit).code).toBe(0);
      const lines = out().trim().split('\n');
      expect(lines).toHaveLength(1);
      const { bootstrap } = JSON.parse(lines[0]) as { bootstrap: { clientId: string; clientSecret: string; group: string; warehouses: number[] } };
      expect(bootstrap).toMatchObject({ group: 'admin', warehouses: [1] });
      expect(bootstrap.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const second = run({ DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'trace' });
      const again = collect(second.stdout);
      await waitFor(() => again().includes('"listening"'), () => again(), second);
      const exit2 = exited(second);
      second.kill('SIGTERM');
      expect((await exit2).code).toBe(0);
      expect(again()).not.toContain('bootstrap');
      expect(again()).not.toContain(bootstrap.clientSecret);
    });

    it('serves /health, then exits 0 on SIGTERM', async () => {
      const child = run({ DATABASE_URL: db.url, PORT: '0' });
      const stdout = collect(child.stdout);
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no 'listening' line: ${stdout()}`)), 20_000);
        child.stdout?.on('data', () => {
          const line = stdout().split('\n').find((l) => l.includes('"listening"'));
          if (line) {
            clearTimeout(timer);
            resolve((JSON.parse(line) as { port: number }).port);
          }
        });
      });
      const exit = exited(child);
      try {
        const health = await fetch(`http://127.0.0.1:${port}/health`);
        expect(health.status).toBe(200);
        // Node's compile cache in the package's node_modules/.cache unless told otherwise (in a subdirectory of Node's per version and user).
        const line = stdout().split('\n').find((l) => l.includes('"listening"'))!;
        expect((JSON.parse(line) as { compileCache: unknown }).compileCache).toEqual(expect.stringMatching(new RegExp(`^${resolve('node_modules/.cache/node-compile-cache')}/`)));
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exit).toEqual({ code: 0, signal: null });
    });

    it("keeps its modules' compiled code in Node's compile cache, on disk once it listens (a killed process keeps it); off, it says why and starts all the same", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'compile-cache-'));
      const files = (under: string): string[] => readdirSync(under, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
      const children: ChildProcess[] = [];
      const listening = async (env: Record<string, string>) => {
        const child = run({ DATABASE_URL: db.url, PORT: '0', ...env });
        children.push(child);
        const stdout = collect(child.stdout);
        await waitFor(() => /"listening".*\n/.test(stdout()), () => stdout(), child);
        const line = stdout().split('\n').find((l) => l.includes('"listening"'))!;
        return { child, line: JSON.parse(line) as { compileCache: string | null; compileCacheOff?: string } };
      };
      try {
        const on = join(dir, 'on');
        const first = await listening({ NODE_COMPILE_CACHE: on });
        expect(first.line.compileCache).toEqual(expect.stringContaining(on));
        expect(first.line.compileCacheOff).toBeUndefined();
        // Written before the port opened, while it runs: SIGKILL leaves no exit to write it at.
        const written = files(on);
        const exit = exited(first.child);
        first.child.kill('SIGKILL');
        await exit;
        // One file per module, hundreds of them (NestJS, TypeORM, the service's own).
        expect(written.length).toBeGreaterThan(100);

        const disabled = join(dir, 'disabled');
        const off = await listening({ NODE_COMPILE_CACHE: disabled, NODE_DISABLE_COMPILE_CACHE: '1' });
        expect(off.line).toMatchObject({ compileCache: null, compileCacheOff: 'NODE_DISABLE_COMPILE_CACHE' });
        // A directory under a file cannot be made: off, and the service starts as ever.
        writeFileSync(join(dir, 'a-file'), '');
        const blocked = await listening({ NODE_COMPILE_CACHE: join(dir, 'a-file', 'cache') });
        expect(blocked.line.compileCache).toBeNull();
        expect(blocked.line.compileCacheOff).toEqual(expect.any(String));
        expect(existsSync(disabled) ? files(disabled) : []).toEqual([]);
        for (const child of [off.child, blocked.child]) {
          const exitOff = exited(child);
          child.kill('SIGTERM');
          expect(await exitOff).toEqual({ code: 0, signal: null });
        }
      } finally {
        for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('ends with status 0 on a SIGTERM that comes while its modules are still loading', async () => {
      /** Starts it and sends SIGTERM once it reads its modules (over 1 MB read: a bare node reads some 40 KB before the service's imports, the service 15 MB and more); its exit, and its RSS when signalled. */
      const signalledWhileLoading = async () => {
        const child = run({ DATABASE_URL: db.url, PORT: '0' });
        const stdout = collect(child.stdout);
        const exit = exited(child);
        const proc = (file: string) => readFileSync(`/proc/${child.pid}/${file}`, 'utf8');
        try {
          while (Number(/rchar: (\d+)/.exec(proc('io'))![1]) < 1_000_000) {
            if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited: ${stdout()}`);
            await new Promise((r) => setTimeout(r, 2));
          }
          const rssMb = Number(/VmRSS:\s*(\d+)/.exec(proc('status'))![1]) / 1024;
          child.kill('SIGTERM');
          return { exit: await exit, rssMb, stdout: stdout() };
        } finally {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        }
      };
      // Signalled while loading: a bare node is some 45 MB, the loaded service 140 MB and more. A fast host may finish first: up to three tries.
      let tried = await signalledWhileLoading();
      for (let attempt = 1; attempt < 3 && tried.rssMb >= 100; attempt++) tried = await signalledWhileLoading();
      expect(tried.rssMb).toBeLessThan(100);
      expect(tried.exit).toEqual({ code: 0, signal: null });
      expect(tried.stdout).not.toContain('"listening"');
    });
  });

  it('lets a request in flight finish before closing the database', async () => {
    const t = await startTestApp({ imports: [ProbeModule] });
    try {
      await t.app.listen(0, '127.0.0.1');
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      const inFlight = fetch(`http://127.0.0.1:${port}/api/v1/__probe/slow`);
      await new Promise((r) => setTimeout(r, 100));
      await closeGracefully(t.app);
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ done: true });
      expect(t.dataSource.isInitialized).toBe(false);
      await expect(request(`http://127.0.0.1:${port}`).get('/health')).rejects.toThrow();
    } finally {
      await t.database.drop();
    }
  });
});
