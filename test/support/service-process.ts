import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The built service (`npm run build`), started as production starts it. */
const MAIN = 'dist/src/main.js';

/** One running `node dist/src/main.js`, on a port of its own. */
export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Its start-up output, later error-level log lines and stderr, for failure messages. */
  output(): string;
  /** Ends it with a signal and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the built service with the given environment (DATABASE_URL at least;
 * LOG_LEVEL must let the info-level `listening` line through)
 * and waits for its `listening` line. Fails with its output if it exits first.
 */
export async function startService(env: Record<string, string>, timeoutMs = 45_000): Promise<ServiceProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build`);
  const child = spawn(process.execPath, ['--max-old-space-size=192', '--max-semi-space-size=16', MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let pending = '';
  let port = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    // The start-up lines are kept; afterwards only error and fatal lines (the
    // request log is not kept: its volume would slow the test process).
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!port) {
        out += `${line}\n`;
        if (line.includes('"listening"')) port = (JSON.parse(line) as { port: number }).port;
      } else if (/"level":(50|60)\b/.test(line) && out.length < 200_000) {
        out += `${line}\n`;
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const until = Date.now() + timeoutMs;
  while (!port) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`service exited before listening: ${out}`);
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`service did not start in ${timeoutMs} ms: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exit;
    },
  };
}
