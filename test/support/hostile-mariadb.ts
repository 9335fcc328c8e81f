import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from './redis-process.js';

/**
 * A throwaway MariaDB server whose global settings are as unfriendly to the
 * service as a server's can be (docs/operations.md "Session settings"): a
 * global `sql_mode` with NO_BACKSLASH_ESCAPES (a backslash is no escape, so
 * a client-side escaper that writes `\'` closes the literal) and ANSI_QUOTES
 * (`"` quotes identifiers), a time zone that is not UTC and latin1 as the
 * server's character set. One `mariadbd` of its own on a free loopback port,
 * started and stopped by PID (never the shared server on 3306), its data
 * under `dir`, run as root; root connects over TCP with an empty password.
 * Like test/support/replica.ts and galera.ts, it needs root.
 */

const MARIADBD = '/usr/sbin/mariadbd';
/** The global settings the service must not depend on. */
export const HOSTILE_GLOBALS = {
  sql_mode: 'NO_BACKSLASH_ESCAPES,ANSI_QUOTES,PIPES_AS_CONCAT',
  time_zone: '+05:30',
  character_set_server: 'latin1',
};

export interface HostileServer {
  port: number;
  /** `mysql://root@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  /** The end of its error log, for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

function defaultsFile(dir: string, port: number): string {
  return [
    '[mysqld]',
    'user=root',
    `datadir=${join(dir, 'data')}`,
    `socket=${join(dir, 'mysqld.sock')}`,
    `pid-file=${join(dir, 'mysqld.pid')}`,
    `log-error=${join(dir, 'error.log')}`,
    `port=${port}`,
    'bind-address=127.0.0.1',
    'skip-name-resolve',
    `sql_mode=${HOSTILE_GLOBALS.sql_mode}`,
    `default-time-zone=${HOSTILE_GLOBALS.time_zone}`,
    `character-set-server=${HOSTILE_GLOBALS.character_set_server}`,
    'collation-server=latin1_swedish_ci',
    'default-storage-engine=InnoDB',
    // Small: a server beside everything else on one test machine.
    'innodb_buffer_pool_size=64M',
    'innodb_log_file_size=32M',
    'innodb_flush_log_at_trx_commit=2',
    'max_connections=200',
    'performance_schema=OFF',
    '',
  ].join('\n');
}

/** Initialises the data dir, starts the server and waits until it answers with the hostile globals in force. */
export async function startHostileServer(dir: string): Promise<HostileServer> {
  if (process.getuid?.() !== 0) throw new Error('a throwaway mariadbd for tests needs root');
  const port = await freePort();
  mkdirSync(join(dir, 'data'), { recursive: true });
  const cnf = join(dir, 'my.cnf');
  writeFileSync(cnf, defaultsFile(dir, port));
  chmodSync(cnf, 0o644); // a world-writable my.cnf is ignored
  execFileSync('mariadb-install-db', ['--no-defaults', '--auth-root-authentication-method=normal', `--datadir=${join(dir, 'data')}`, '--user=root', '--skip-test-db'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = () => {
    try {
      return readFileSync(join(dir, 'error.log'), 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '(no error log)';
    }
  };
  let child: ChildProcess | null = spawn(MARIADBD, [`--defaults-file=${cnf}`], { stdio: 'ignore' });
  const orphan = () => child?.kill('SIGKILL');
  process.once('exit', orphan);
  child.once('exit', () => (child = null));
  const server: HostileServer = {
    port,
    url: (database = '') => `mysql://root@127.0.0.1:${port}/${database}`,
    log,
    stop: async () => {
      const running = child;
      process.removeListener('exit', orphan);
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const done = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      const timer = setTimeout(() => running.kill('SIGKILL'), 20_000);
      await done;
      clearTimeout(timer);
    },
  };
  try {
    const until = Date.now() + 60_000;
    for (;;) {
      if (!child) throw new Error(`mariadbd on ${port} exited:\n${log()}`);
      try {
        const conn = await mysql.createConnection({ uri: server.url(), connectTimeout: 2000 });
        try {
          const [[globals]] = (await conn.query('SELECT @@GLOBAL.sql_mode AS sql_mode, @@GLOBAL.time_zone AS time_zone, @@GLOBAL.character_set_server AS cs')) as unknown as [
            [{ sql_mode: string; time_zone: string; cs: string }],
          ];
          if (!globals.sql_mode.includes('NO_BACKSLASH_ESCAPES') || !globals.sql_mode.includes('ANSI_QUOTES') || globals.time_zone !== HOSTILE_GLOBALS.time_zone || globals.cs !== 'latin1') {
            throw new Error(`the throwaway server does not have the hostile globals: ${JSON.stringify(globals)}`);
          }
        } finally {
          await conn.end();
        }
        return server;
      } catch (error) {
        if (/hostile globals/.test((error as Error).message)) throw error;
        if (Date.now() > until) throw new Error(`mariadbd on ${port} not answering (${(error as Error).message}):\n${log()}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
}
