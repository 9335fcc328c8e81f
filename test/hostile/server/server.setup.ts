import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HostileServer, startHostileServer } from '../../support/hostile-mariadb.js';

/**
 * Global setup of the `hostile:server-settings` project (jest.hostile.config.js):
 * a throwaway MariaDB server whose global sql_mode has NO_BACKSLASH_ESCAPES and
 * ANSI_QUOTES, with a non-UTC time zone and latin1 as its character set. Its URL
 * goes to the project's specs as TEST_HOSTILE_SERVER_URL (test/hostile/server/env.ts
 * makes it their TEST_MYSQL_URL); TEST_MYSQL_URL itself is left alone for the
 * other projects of the run.
 */
export default async function setup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'inventory-hostile-server-'));
  const server = await startHostileServer(dir);
  (globalThis as { hostileServer?: { server: HostileServer; dir: string } }).hostileServer = { server, dir };
  process.env.TEST_HOSTILE_SERVER_URL = server.url('test');
  process.stderr.write(`\n[server settings] specs run against a MariaDB with hostile globals at ${process.env.TEST_HOSTILE_SERVER_URL}\n`);
}
