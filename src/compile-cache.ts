import * as nodeModule from 'node:module';
import { join } from 'node:path';

/**
 * Node's module compile cache for the service's process (main.ts imports
 * this before anything else): the V8 code of every module loaded after it
 * is kept on disk and read back at the next start instead of compiled
 * again (`module.enableCompileCache`, Node's public API; stable since Node
 * 24.15, "active development" on 24.11–24.14, where it works the same).
 *
 * The directory is `node_modules/.cache/node-compile-cache` of this
 * package, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it
 * off. Node keeps a subdirectory per Node version, architecture, V8 flags
 * and user in it, and checks each entry against its module's source (size
 * and checksum: integrity, not authenticity — the directory must be
 * writable by the service's user alone). A directory that cannot be created
 * leaves the cache off, which changes nothing but the start's time.
 *
 * The functions are looked up rather than imported by name, so that an older
 * Node still reaches the service's own version check
 * (`Start-up failed: the service needs Node.js 24.11 or newer…`).
 */
const DEFAULT_DIRECTORY = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'node-compile-cache');

const result = nodeModule.enableCompileCache?.(process.env.NODE_COMPILE_CACHE ? undefined : DEFAULT_DIRECTORY);

/** Where the cache is (null when off) and, when off, why: what the `listening` log line says of it. */
export function compileCacheState(): { directory: string | null; off?: string } {
  const directory = nodeModule.getCompileCacheDir?.() ?? null;
  if (directory) return { directory };
  const status = nodeModule.constants?.compileCacheStatus;
  if (!result || !status) return { directory: null, off: 'this Node has no compile cache' };
  if (result.status === status.DISABLED) return { directory: null, off: 'NODE_DISABLE_COMPILE_CACHE' };
  return { directory: null, off: result.message ?? 'it could not be enabled' };
}

/** Writes what was compiled so far to the cache now rather than at exit (a killed process leaves it too). */
export function flushCompileCache(): void {
  nodeModule.flushCompileCache?.();
}
