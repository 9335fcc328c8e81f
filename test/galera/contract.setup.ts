import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGaleraCluster, type GaleraCluster } from '../support/galera.js';

/**
 * Global setup of the contract run on Galera (jest.galera-contract.config.js):
 * a MariaDB Galera node of its own on loopback (wsrep on, a cluster of one),
 * which every e2e spec of the MariaDB run then uses through TEST_MYSQL_URL,
 * exactly as it uses the plain server in `npm test`.
 */
export default async function setup(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'inventory-galera-contract-'));
  const cluster = await startGaleraCluster(dir, 1);
  (globalThis as { galeraContract?: { cluster: GaleraCluster; dir: string } }).galeraContract = { cluster, dir };
  process.env.TEST_MYSQL_URL = cluster.url(0, 'test');
  // test/setup/galera-node.ts checks, in every worker, that the specs run against this node.
  process.env.TEST_GALERA_NODE = process.env.TEST_MYSQL_URL;
  process.stderr.write(`\n[galera contract] the e2e specs run against a Galera node at ${process.env.TEST_MYSQL_URL}\n`);
}
