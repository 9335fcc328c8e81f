import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** A redis-server of a test's own on loopback, to stop, pause and restart at will (never the shared one). */
export interface RedisProcess {
  port: number;
  url: string;
  /** Sends a signal to the server process (SIGKILL, SIGSTOP, SIGCONT, …); SIGKILL and SIGTERM wait for its exit. */
  signal(signal: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same port, after a kill. */
  restart(): Promise<void>;
  /** Kills it for good (resuming it first if paused). */
  stop(): Promise<void>;
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startRedisServer(): Promise<RedisProcess> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess;
  const launch = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const until = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} (port ${port})`);
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      const answered = await probe.connect().then(() => probe.ping()).then(() => true, () => false);
      probe.disconnect();
      if (answered) return;
      if (Date.now() > until) throw new Error(`redis-server did not answer on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await launch();
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(sig);
    if (sig === 'SIGKILL' || sig === 'SIGTERM') await exited;
  };
  return {
    port,
    url,
    signal,
    restart: launch,
    stop: async () => {
      await signal('SIGCONT');
      await signal('SIGKILL');
    },
  };
}
