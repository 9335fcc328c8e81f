import { createRequire } from 'node:module';

/**
 * Whether better-sqlite3, a native addon, loads under the Node.js that runs
 * the service: null when it does, else one line saying what to do. An addon
 * built for another Node (Node upgraded without `npm rebuild`) otherwise
 * fails deep in the framework's connect, logged as "Unable to connect to the
 * database. Retrying…" with "Module did not self-register" or a
 * NODE_MODULE_VERSION mismatch further down.
 */
export function sqliteDriverProblem(load: () => unknown = () => createRequire(import.meta.url)('better-sqlite3'), nodeVersion = process.versions.node): string | null {
  // better-sqlite3 13 needs Node.js 22 or newer, and an older Node crashes as it loads it, so this is asked first.
  const [major, minor] = nodeVersion.split('.').map(Number);
  if (major < 24 || (major === 24 && minor < 11)) return `the service needs Node.js 24.11 or newer; this is v${nodeVersion} (see .nvmrc).`;
  try {
    const Database = load() as new (file: string) => { close(): void };
    new Database(':memory:').close();
    return null;
  } catch (error) {
    return describeSqliteLoadFailure(error);
  }
}

/** The line for a failure to load or open better-sqlite3. */
export function describeSqliteLoadFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/NODE_MODULE_VERSION|did not self-register|compiled against a different Node\.js version/i.test(message)) {
    return `better-sqlite3 was built for another Node.js version than this one (${process.version}): run "npm rebuild better-sqlite3" with this Node, then start again.`;
  }
  return `better-sqlite3 cannot be loaded (${message.split('\n')[0]}): run "npm ci" with this Node, then start again.`;
}
