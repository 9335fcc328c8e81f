import { rmSync } from 'node:fs';
import type { HostileServer } from '../../support/hostile-mariadb.js';

/** Stops the throwaway server of the `hostile:server-settings` project and removes its data. */
export default async function teardown(): Promise<void> {
  const state = (globalThis as { hostileServer?: { server: HostileServer; dir: string } }).hostileServer;
  if (!state) return;
  await state.server.stop();
  rmSync(state.dir, { recursive: true, force: true });
}
