import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from './redis-process.js';

/**
 * A MariaDB primary and a binlog replica of it on loopback, for tests: two
 * `mariadbd` processes of their own (never the server on 3306), started and
 * stopped by PID, their data under `dir`, on free ports. The replica follows
 * the primary by GTID (`MASTER_USE_GTID=slave_pos`) from the first binlog
 * event, so whatever the tests create on the primary reaches it. Root
 * connects over TCP with an empty password on both; `reader`, made on the
 * primary and replicated, may only SELECT, so a service given it for the
 * replica cannot write there.
 */

const MARIADBD = '/usr/sbin/mariadbd';
/** The servers run as this user, as the Galera harness's do (`test/support/galera.ts`). */
const USER = 'mysql';
/** The replication user, and the read-only user a service reads the replica as. */
const REPL = { user: 'repl', password: 'repl-test' };
export const READER = { user: 'reader', password: 'reader-test' };

export interface ReplicaServer {
  /** The SQL port, and `mysql://root@127.0.0.1:<port>/`. */
  port: number;
  url: string;
  /** The running mariadbd, or null while stopped. */
  process: ChildProcess | null;
  /** The end of its error log, for failure messages. */
  log(): string;
}

export interface ReplicaPair {
  dir: string;
  primary: ReplicaServer;
  replica: ReplicaServer;
  /** `mysql://root@…/<database>` on the primary, or on the replica as `reader` (SELECT only). */
  primaryUrl(database: string): string;
  readerUrl(database: string): string;
  /** Stops or starts the replica's SQL thread: the relay log still fills, nothing is applied (a replica lagging as far as one likes). */
  stopSql(): Promise<void>;
  startSql(): Promise<void>;
  /** Waits until the replica has applied everything the primary has committed so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** SIGKILL the replica and wait for its exit. */
  killReplica(): Promise<void>;
  /** SIGSTOP / SIGCONT the replica: it keeps its connections but answers nothing (a hung server). */
  pauseReplica(): void;
  resumeReplica(): void;
  /** Starts the replica again; replication resumes from where it stood. */
  restartReplica(): Promise<void>;
  /** GTIDs the replica holds (`@@gtid_current_pos`): only the primary's server id when nothing was written on the replica itself. */
  replicaGtids(): Promise<string>;
  /** Ends both servers (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

function defaultsFile(home: string, port: number, serverId: number, role: 'primary' | 'replica'): string {
  return [
    '[mysqld]',
    `user=${USER}`,
    `datadir=${join(home, 'data')}`,
    `socket=${join(home, 'mysqld.sock')}`,
    `pid-file=${join(home, 'mysqld.pid')}`,
    `log-error=${join(home, 'error.log')}`,
    `port=${port}`,
    'bind-address=127.0.0.1',
    'skip-name-resolve',
    'character-set-server=utf8mb4',
    'collation-server=utf8mb4_unicode_ci',
    'default-storage-engine=InnoDB',
    `server-id=${serverId}`,
    'binlog_format=ROW',
    // Small: two servers beside everything else on one test machine.
    'innodb_buffer_pool_size=64M',
    'innodb_log_file_size=32M',
    'innodb_flush_log_at_trx_commit=2',
    'max_connections=200',
    'performance_schema=OFF',
    ...(role === 'primary'
      ? [`log-bin=${join(home, 'data', 'binlog')}`]
      : [`relay-log=${join(home, 'data', 'relay')}`, 'read_only=ON', 'skip-slave-start=ON']),
    '',
  ].join('\n');
}

async function withConnection<T>(url: string, work: (conn: mysql.Connection) => Promise<T>): Promise<T> {
  const conn = await mysql.createConnection({ uri: url, connectTimeout: 2000 });
  try {
    return await work(conn);
  } finally {
    await conn.end();
  }
}

/**
 * Initialises both data dirs, starts the primary and the replica, creates
 * the replication and reader users on the primary, and starts replication.
 * Needs root (mariadbd switches to the mysql user).
 */
export async function startReplicaPair(dir: string): Promise<ReplicaPair> {
  if (process.getuid?.() !== 0) throw new Error('a MariaDB replica pair for tests needs root (mariadbd switching to the mysql user)');
  chmodSync(dir, 0o755); // a directory from mkdtemp is private
  const primaryPort = await freePort();
  let replicaPort = await freePort();
  while (replicaPort === primaryPort) replicaPort = await freePort();

  const servers: Array<ReplicaServer & { home: string }> = [];
  for (const [name, port, serverId, role] of [
    ['primary', primaryPort, 1, 'primary'],
    ['replica', replicaPort, 2, 'replica'],
  ] as const) {
    const home = join(dir, name);
    mkdirSync(join(home, 'data'), { recursive: true });
    execFileSync('chown', ['-R', `${USER}:${USER}`, home]);
    const cnf = join(home, 'my.cnf');
    writeFileSync(cnf, defaultsFile(home, port, serverId, role));
    chmodSync(cnf, 0o644); // a world-writable my.cnf is ignored
    execFileSync('mariadb-install-db', ['--no-defaults', '--auth-root-authentication-method=normal', `--datadir=${join(home, 'data')}`, `--user=${USER}`, '--skip-test-db'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    servers.push({
      home,
      port,
      url: `mysql://root@127.0.0.1:${port}/`,
      process: null,
      log: () => {
        try {
          return readFileSync(join(home, 'error.log'), 'utf8').split('\n').slice(-30).join('\n');
        } catch {
          return '(no error log)';
        }
      },
    });
  }
  const [primary, replica] = servers;

  // SIGKILL ends a stopped (SIGSTOP) process too.
  const orphans = () => servers.forEach((s) => s.process?.kill('SIGKILL'));
  process.once('exit', orphans);
  const launch = (server: (typeof servers)[number]) => {
    const child = spawn(MARIADBD, [`--defaults-file=${join(server.home, 'my.cnf')}`], { stdio: 'ignore' });
    server.process = child;
    child.once('exit', () => {
      if (server.process === child) server.process = null;
    });
  };
  const answering = async (server: (typeof servers)[number], timeoutMs = 60_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      if (!server.process) throw new Error(`mariadbd on ${server.port} exited:\n${server.log()}`);
      try {
        await withConnection(server.url, (c) => c.query('SELECT 1'));
        return;
      } catch (error) {
        if (Date.now() > until) throw new Error(`mariadbd on ${server.port} not answering after ${timeoutMs} ms (${(error as Error).message}):\n${server.log()}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const exited = async (server: (typeof servers)[number], signal: NodeJS.Signals, graceMs: number) => {
    const child = server.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const done = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
  };
  const onReplica = <T>(work: (c: mysql.Connection) => Promise<T>) => withConnection(replica.url, work);
  const replicating = async (timeoutMs = 30_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const [rows] = await onReplica((c) => c.query('SHOW SLAVE STATUS'));
      const status = (rows as Array<Record<string, string>>)[0];
      if (status?.Slave_IO_Running === 'Yes' && status?.Slave_SQL_Running === 'Yes') return;
      if (Date.now() > until) throw new Error(`replication did not start: ${JSON.stringify(status)}\n${replica.log()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const pair: ReplicaPair = {
    dir,
    primary,
    replica,
    primaryUrl: (database) => `${primary.url}${database}`,
    readerUrl: (database) => `mysql://${READER.user}:${READER.password}@127.0.0.1:${replica.port}/${database}`,
    stopSql: () => onReplica((c) => c.query('STOP SLAVE SQL_THREAD')).then(() => undefined),
    startSql: async () => {
      await onReplica((c) => c.query('START SLAVE SQL_THREAD'));
      await replicating();
    },
    caughtUp: async (timeoutMs = 30_000) => {
      const [[{ pos }]] = (await withConnection(primary.url, (c) => c.query('SELECT @@gtid_binlog_pos AS pos'))) as unknown as [[{ pos: string }]];
      const [[{ waited }]] = (await onReplica((c) => c.query('SELECT MASTER_GTID_WAIT(?, ?) AS waited', [pos, timeoutMs / 1000]))) as unknown as [[{ waited: number }]];
      if (Number(waited) !== 0) throw new Error(`the replica did not reach ${pos} in ${timeoutMs} ms:\n${replica.log()}`);
    },
    killReplica: () => exited(replica, 'SIGKILL', 0),
    pauseReplica: () => void replica.process?.kill('SIGSTOP'),
    resumeReplica: () => void replica.process?.kill('SIGCONT'),
    restartReplica: async () => {
      launch(replica);
      await answering(replica);
      await onReplica((c) => c.query('START SLAVE'));
      await replicating();
    },
    replicaGtids: async () => {
      const [[{ pos }]] = (await onReplica((c) => c.query('SELECT @@gtid_current_pos AS pos'))) as unknown as [[{ pos: string }]];
      return pos;
    },
    stop: async () => {
      replica.process?.kill('SIGCONT');
      await Promise.all(servers.map((s) => exited(s, 'SIGTERM', 20_000)));
      process.removeListener('exit', orphans);
    },
  };

  try {
    for (const server of servers) {
      launch(server);
      await answering(server);
    }
    await withConnection(primary.url, async (c) => {
      await c.query(`CREATE USER '${REPL.user}'@'127.0.0.1' IDENTIFIED BY '${REPL.password}'`);
      await c.query(`GRANT REPLICATION SLAVE ON *.* TO '${REPL.user}'@'127.0.0.1'`);
      // SELECT on every database: the tests name theirs later. Replicated, like everything after this point.
      await c.query(`CREATE USER '${READER.user}'@'127.0.0.1' IDENTIFIED BY '${READER.password}'`);
      await c.query(`GRANT SELECT ON *.* TO '${READER.user}'@'127.0.0.1'`);
    });
    await onReplica(async (c) => {
      await c.query(
        `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary.port}, MASTER_USER='${REPL.user}', MASTER_PASSWORD='${REPL.password}', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1`,
      );
      await c.query('START SLAVE');
    });
    await replicating();
    await pair.caughtUp();
  } catch (error) {
    await pair.stop();
    throw error;
  }
  return pair;
}
