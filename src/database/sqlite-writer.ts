import { DataSource, type DataSourceOptions, type QueryRunner } from 'typeorm';
import { transientCause } from './retry.js';
import type { Begun } from './transaction-context.js';

/** How long SQLite's BEGIN IMMEDIATE waits for another connection's write lock (another process, or another instance in this one). */
const SQLITE_LOCK_WAIT_MS = 10_000;

/**
 * SQLite's writer: TypeORM's better-sqlite3 driver has a single connection
 * for everything, so a transaction there would nest under another request's
 * transaction and let reads see uncommitted rows. Transactions therefore run
 * on a second connection of their own, one at a time, in the order they
 * asked (SQLite has one writer anyway); reads keep the main connection and
 * see only committed data (WAL).
 */
export class SqliteWriter {
  private writer: DataSource | null = null;
  /** The turn of the transaction last queued; the next one begins when it ends. */
  private queue: Promise<unknown> = Promise.resolve();

  /** Opens the writer's connection to the main data source's file. */
  async open(options: DataSourceOptions): Promise<void> {
    // No busy timeout on the writer: better-sqlite3 would wait for another writer's lock synchronously, stopping the
    // event loop (and, in this process, the writer it waits for); `begin` waits for it asynchronously instead.
    this.writer = new DataSource({ ...options, migrationsRun: false, synchronize: false, timeout: 0 } as DataSourceOptions);
    await this.writer.initialize();
  }

  async close(): Promise<void> {
    if (this.writer?.isInitialized) await this.writer.destroy();
  }

  /**
   * Waits for the writer's turn, then BEGIN IMMEDIATE takes the write lock
   * (waiting for it asynchronously: beginImmediate), so another process writing the same
   * file cannot make this transaction fail half-way when it upgrades from
   * reading to writing. The turn passes on when the transaction is released.
   */
  async begin(): Promise<Begun> {
    let pass!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => (pass = resolve));
    await previous;
    const runner = this.writer!.createQueryRunner();
    try {
      await beginImmediate(runner);
    } catch (error) {
      pass();
      throw error;
    }
    return {
      manager: runner.manager,
      commit: () => runner.query('COMMIT'),
      rollback: () => runner.query('ROLLBACK'),
      release: async () => pass(),
    };
  }
}

/**
 * BEGIN IMMEDIATE, waiting for the file's write lock asynchronously: tried
 * again after a short pause (5 ms, doubling up to 100 ms) while another
 * connection holds the lock, for up to SQLITE_LOCK_WAIT_MS, then the busy
 * error, which the runner's retries treat as transient. A synchronous busy timeout
 * would stop this process's event loop for as long as the other writer holds
 * the lock, which may be a long batch that lets its own loop turn.
 */
async function beginImmediate(runner: QueryRunner): Promise<void> {
  const until = Date.now() + SQLITE_LOCK_WAIT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      await runner.query('BEGIN IMMEDIATE');
      return;
    } catch (error) {
      if (transientCause(error) !== 'busy' || Date.now() + pause > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
