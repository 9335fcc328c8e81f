import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from './redis-process.js';

/**
 * A MariaDB Galera cluster of its own on loopback, for tests: `n` mariadbd
 * processes started and stopped by PID, their data under `dir`, on ports
 * nobody else listens on (never the shared server on 3306). Root connects over
 * TCP with an empty password on every node.
 */

const PROVIDER = '/usr/lib/galera/libgalera_smm.so';
const MARIADBD = '/usr/sbin/mariadbd';
/** The servers and their SST run as this user: the rsync SST daemon, started by root, would act as `nobody` and could not set the modes of root's files. */
const USER = 'mysql';

export interface GaleraNode {
  index: number;
  /** The SQL port, and `mysql://root@127.0.0.1:<port>/`. */
  port: number;
  url: string;
  /** The running mariadbd, or null while stopped. */
  process: ChildProcess | null;
  /** The node's error log, for failure messages. */
  log(): string;
}

export interface GaleraCluster {
  dir: string;
  nodes: GaleraNode[];
  /** `mysql://root@127.0.0.1:<port>/<database>` of node `i`. */
  url(i: number, database: string): string;
  /** SIGKILL node `i` and wait for its exit (the others go on as a cluster of n − 1). */
  kill(i: number): Promise<void>;
  /** Starts node `i` again and waits until it is Synced and the cluster whole again; says how it caught up. */
  restart(i: number): Promise<'SST' | 'IST' | 'none'>;
  /** Waits until every running node has applied everything committed anywhere (same last committed seqno, empty queues). */
  settled(timeoutMs?: number): Promise<void>;
  /** Ends every node (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

/** `apt-get install -y galera-4 rsync` when the provider or rsync is missing (as `.ci/run` installs what it needs). */
export function ensureGaleraInstalled(): void {
  if (existsSync(PROVIDER) && ['/usr/bin/rsync', '/bin/rsync'].some((p) => existsSync(p))) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'galera-4', 'rsync'], { stdio: 'inherit', env });
  if (!existsSync(PROVIDER)) throw new Error(`galera-4 installed but ${PROVIDER} is missing`);
}

interface Ports {
  sql: number;
  gcomm: number;
  ist: number;
  sst: number;
}

/** One node's my.cnf (mode 644: a world-writable one is ignored): its own ports, socket and data dir, rsync SST. */
function defaultsFile(dir: string, i: number, ports: Ports[]): string {
  const own = ports[i];
  const home = join(dir, `node${i + 1}`);
  return [
    '[mysqld]',
    `user=${USER}`,
    `datadir=${join(home, 'data')}`,
    `socket=${join(home, 'mysqld.sock')}`,
    `pid-file=${join(home, 'mysqld.pid')}`,
    `log-error=${join(home, 'error.log')}`,
    `port=${own.sql}`,
    'bind-address=127.0.0.1',
    'skip-name-resolve',
    'character-set-server=utf8mb4',
    'collation-server=utf8mb4_unicode_ci',
    'default-storage-engine=InnoDB',
    'binlog_format=ROW',
    'innodb_autoinc_lock_mode=2',
    // Small: three servers beside everything else on one test machine.
    'innodb_buffer_pool_size=64M',
    'innodb_log_file_size=32M',
    'innodb_flush_log_at_trx_commit=2',
    'max_connections=200',
    'performance_schema=OFF',
    'wsrep_on=ON',
    `wsrep_provider=${PROVIDER}`,
    'wsrep_cluster_name=inventory_test',
    `wsrep_node_name=node${i + 1}`,
    'wsrep_node_address=127.0.0.1',
    `wsrep_node_incoming_address=127.0.0.1:${own.sql}`,
    `wsrep_cluster_address=gcomm://${ports.map((p) => `127.0.0.1:${p.gcomm}`).join(',')}`,
    `wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:${own.gcomm};ist.recv_addr=127.0.0.1:${own.ist};gcache.size=64M"`,
    'wsrep_sst_method=rsync',
    `wsrep_sst_receive_address=127.0.0.1:${own.sst}`,
    'wsrep_slave_threads=2',
    '',
  ].join('\n');
}

async function status(url: string, names: string[]): Promise<Record<string, string>> {
  const conn = await mysql.createConnection({ uri: url, connectTimeout: 2000 });
  try {
    const [rows] = await conn.query('SHOW GLOBAL STATUS WHERE Variable_name IN (?)', [names]);
    return Object.fromEntries((rows as Array<{ Variable_name: string; Value: string }>).map((r) => [r.Variable_name, r.Value]));
  } finally {
    await conn.end();
  }
}

/**
 * Initialises `n` data dirs under `dir` and starts the nodes one after the
 * other: the first bootstraps the cluster (`--wsrep-new-cluster`), each next
 * one is started only once the cluster has every node before it, Synced.
 */
export async function startGaleraCluster(dir: string, n = 3): Promise<GaleraCluster> {
  // Root: to install packages, and for mariadbd to switch to the mysql user.
  if (process.getuid?.() !== 0) throw new Error('a Galera cluster for tests needs root (apt-get, and mariadbd switching to the mysql user)');
  ensureGaleraInstalled();
  const ports: Ports[] = [];
  const taken = new Set<number>();
  const port = async () => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) return taken.add(p), p;
    }
  };
  for (let i = 0; i < n; i++) ports.push({ sql: await port(), gcomm: await port(), ist: await port(), sst: await port() });

  const nodes: GaleraNode[] = [];
  chmodSync(dir, 0o755); // a directory from mkdtemp is private
  for (let i = 0; i < n; i++) {
    const home = join(dir, `node${i + 1}`);
    mkdirSync(join(home, 'data'), { recursive: true });
    // Everything of a node belongs to the servers' user, readable by all.
    execFileSync('chown', ['-R', `${USER}:${USER}`, home]);
    const cnf = join(home, 'my.cnf');
    writeFileSync(cnf, defaultsFile(dir, i, ports));
    chmodSync(cnf, 0o644); // a world-writable my.cnf is ignored
    execFileSync('mariadb-install-db', ['--no-defaults', '--auth-root-authentication-method=normal', `--datadir=${join(home, 'data')}`, `--user=${USER}`, '--skip-test-db'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const url = `mysql://root@127.0.0.1:${ports[i].sql}/`;
    nodes.push({
      index: i,
      port: ports[i].sql,
      url,
      process: null,
      log: () => {
        try {
          return readFileSync(join(home, 'error.log'), 'utf8').split('\n').slice(-40).join('\n');
        } catch {
          return '(no error log)';
        }
      },
    });
  }

  // Servers left running by a test process that ends without stop() are killed with it.
  const orphans = () => nodes.forEach((x) => x.process?.kill('SIGKILL'));
  process.once('exit', orphans);
  const launch = (i: number, bootstrap: boolean) => {
    const args = [`--defaults-file=${join(dir, `node${i + 1}`, 'my.cnf')}`, ...(bootstrap ? ['--wsrep-new-cluster'] : [])];
    const child = spawn(MARIADBD, args, { stdio: 'ignore' });
    nodes[i].process = child;
    child.once('exit', () => {
      if (nodes[i].process === child) nodes[i].process = null;
    });
  };

  /** Waits for node `i` to answer, Synced, in a primary component of `size` nodes. */
  const synced = async (i: number, size: number, timeoutMs = 120_000) => {
    const until = Date.now() + timeoutMs;
    let last: Record<string, string> | string = 'no answer';
    for (;;) {
      if (!nodes[i].process) throw new Error(`galera node ${i + 1} exited:\n${nodes[i].log()}`);
      try {
        last = await status(nodes[i].url, ['wsrep_cluster_size', 'wsrep_local_state_comment', 'wsrep_ready', 'wsrep_cluster_status']);
        if (Number(last.wsrep_cluster_size) === size && last.wsrep_local_state_comment === 'Synced' && last.wsrep_ready === 'ON' && last.wsrep_cluster_status === 'Primary') return;
      } catch (error) {
        last = (error as Error).message;
      }
      if (Date.now() > until) throw new Error(`galera node ${i + 1} not synced in a cluster of ${size} after ${timeoutMs} ms (${JSON.stringify(last)}):\n${nodes[i].log()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  const exited = async (i: number, signal: NodeJS.Signals, graceMs: number) => {
    const child = nodes[i].process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const done = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
  };

  const cluster: GaleraCluster = {
    dir,
    nodes,
    url: (i, database) => `${nodes[i].url}${database}`,
    kill: (i) => exited(i, 'SIGKILL', 0),
    restart: async (i) => {
      const logFile = join(dir, `node${i + 1}`, 'error.log');
      const before = existsSync(logFile) ? readFileSync(logFile).length : 0;
      launch(i, false);
      await synced(i, nodes.filter((x) => x.process).length);
      const since = readFileSync(logFile).subarray(before).toString();
      // After a SIGKILL the node's saved position is unknown (seqno -1), so a full SST is the usual path.
      return /SST succeeded/.test(since) ? 'SST' : /IST received/.test(since) ? 'IST' : 'none';
    },
    settled: async (timeoutMs = 60_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const running = nodes.filter((x) => x.process);
        const states = await Promise.all(running.map((x) => status(x.url, ['wsrep_last_committed', 'wsrep_local_recv_queue', 'wsrep_local_state_comment'])));
        if (new Set(states.map((s) => s.wsrep_last_committed)).size === 1 && states.every((s) => s.wsrep_local_recv_queue === '0' && s.wsrep_local_state_comment === 'Synced')) return;
        if (Date.now() > until) throw new Error(`galera nodes not settled: ${JSON.stringify(states)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop: async () => {
      await Promise.all(nodes.map((_, i) => exited(i, 'SIGTERM', 20_000)));
      process.removeListener('exit', orphans);
    },
  };

  try {
    for (let i = 0; i < n; i++) {
      launch(i, i === 0);
      await synced(i, i + 1);
    }
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
