import { createRequire } from 'node:module';

/** The oldest Node.js the service runs on (package.json `engines`, `.nvmrc`). */
const OLDEST = [24, 11] as const;

/**
 * Null when this Node.js is one the service supports, else one line saying
 * so. Asked first by the service and the admin CLI, whatever the database:
 * on an older Node the framework may load, but better-sqlite3 13 crashes the
 * process as it loads.
 */
export function nodeVersionProblem(nodeVersion = process.versions.node): string | null {
  const [major, minor] = nodeVersion.split('.').map(Number);
  if (major > OLDEST[0] || (major === OLDEST[0] && minor >= OLDEST[1])) return null;
  return `the service needs Node.js ${OLDEST.join('.')} or newer; this is v${nodeVersion} (see .nvmrc).`;
}

/** What stops the service or the CLI from starting on this runtime, in one line, or null: the Node.js version, then (on SQLite) the driver. */
export function runtimeProblem(database: 'sqlite' | 'mysql'): string | null {
  return nodeVersionProblem() ?? (database === 'sqlite' ? sqliteDriverProblem() : null);
}

/**
 * Whether better-sqlite3 loads and opens a database under this Node.js: null
 * when it does, else one line saying what to do, instead of a failure deep in
 * the framework's connect ("Unable to connect to the database. Retrying…").
 */
export function sqliteDriverProblem(load: () => unknown = () => createRequire(import.meta.url)('better-sqlite3')): string | null {
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
  return `better-sqlite3 cannot be loaded (${message.split('\n')[0]}): run "npm ci" with this Node, then start again.`;
}
