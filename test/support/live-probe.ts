import { spawn } from 'node:child_process';

/**
 * The prober's own script: asks `<url>/health/live` every 20 ms until its
 * stdin closes, then writes every answer's time (ms) as one JSON line. It
 * runs as a process of its own so that a pause of the test process (a jest
 * worker's collection of a heap grown over many spec files) is not counted
 * as the service's.
 */
const PROBER = `
const url = process.argv[1];
let running = true;
process.stdin.on('end', () => (running = false)).resume();
// The first fetch of a process loads its HTTP client and connects: done before any probe is timed.
await (await fetch(url)).arrayBuffer();
process.stdout.write('ready\\n');
const times = [];
const failures = [];
while (running) {
  const sent = performance.now();
  try {
    const live = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    await live.arrayBuffer();
    if (live.status !== 200) failures.push('status ' + live.status);
  } catch (error) {
    failures.push(String(error));
  }
  times.push(performance.now() - sent);
  await new Promise((r) => setTimeout(r, 20));
}
process.stdout.write(JSON.stringify({ times, failures }) + '\\n');
`;

/** A running prober of `/health/live`; `stop` ends it and gives every probe's time in ms. */
export interface LiveProbe {
  stop(): Promise<number[]>;
}

/** Starts probing `<serviceUrl>/health/live` every 20 ms from a process of its own; resolves once the first timed probe is under way. */
export async function startLiveProbe(serviceUrl: string): Promise<LiveProbe> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROBER, `${serviceUrl}/health/live`], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => child.stdout.on('data', () => out.startsWith('ready\n') && resolve(true))),
    exit.then(() => false),
  ]);
  if (!ready) throw new Error(`the prober did not start: ${err}`);
  return {
    stop: async () => {
      child.stdin.end();
      const code = await exit;
      if (code !== 0) throw new Error(`the prober exited with ${code}: ${err}`);
      const { times, failures } = JSON.parse(out.slice('ready\n'.length)) as { times: number[]; failures: string[] };
      if (failures.length) throw new Error(`/health/live failed: ${failures.slice(0, 5).join('; ')}`);
      return times;
    },
  };
}
