import { rmSync } from 'node:fs';
import type { GaleraCluster } from '../support/galera.js';

/** Stops the Galera node of the contract run and removes its data. */
export default async function teardown(): Promise<void> {
  const state = (globalThis as { galeraContract?: { cluster: GaleraCluster; dir: string } }).galeraContract;
  if (!state) return;
  await state.cluster.stop();
  rmSync(state.dir, { recursive: true, force: true });
}
