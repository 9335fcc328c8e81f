import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager, type SelectQueryBuilder, type ObjectLiteral } from 'typeorm';
import { DomainError } from '../errors.js';

export class TooMuchContention extends DomainError {
  constructor() {
    super('conflict', 'The request met concurrent changes and could not be completed; retry it.');
  }
}

const MAX_ATTEMPTS = 6;

/**
 * The one way an inventory change is written (DECISIONS "Inventory"): a single
 * transaction, retried a bounded number of times on a deadlock, a lock wait
 * timeout or a busy database, and never shown to the client as a 500.
 *
 * MySQL/MariaDB: READ COMMITTED on the shared pool; callers lock the rows they
 * read with `forUpdate`, always in the same order.
 *
 * SQLite: TypeORM's better-sqlite3 driver has a single connection for
 * everything, so a transaction there would nest under another request's
 * transaction and let reads see uncommitted rows. Transactions therefore run
 * on a second connection of their own, one at a time (SQLite has one writer
 * anyway); reads keep the main connection and see only committed data (WAL).
 */
@Injectable()
export class TransactionRunner implements OnModuleInit, OnApplicationShutdown {
  private writer: DataSource | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Pooled MySQL connections whose session is already READ COMMITTED. */
  private readonly readCommitted = new WeakSet<object>();

  constructor(private readonly dataSource: DataSource) {}

  get isMysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  async onModuleInit(): Promise<void> {
    if (this.isMysql) return;
    this.writer = new DataSource({ ...this.dataSource.options, migrationsRun: false, synchronize: false } as typeof this.dataSource.options);
    await this.writer.initialize();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.writer?.isInitialized) await this.writer.destroy();
  }

  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return this.isMysql ? await this.mysqlTransaction(work) : await this.exclusive(() => this.sqliteTransaction(work));
      } catch (error) {
        if (!isTransient(error)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new TooMuchContention();
        await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
      }
    }
  }

  /** Locks the rows a query reads until the transaction ends (SQLite's single writer already excludes the rest). */
  forUpdate<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
    return this.isMysql ? qb.setLock('pessimistic_write') : qb;
  }

  /**
   * READ COMMITTED is set once per pooled connection, for its session, rather
   * than before every transaction: one round trip less for every write.
   */
  private async mysqlTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const connection = (await runner.connect()) as object;
      if (!this.readCommitted.has(connection)) {
        await runner.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
        this.readCommitted.add(connection);
      }
      await runner.startTransaction();
      try {
        const result = await work(runner.manager);
        await runner.commitTransaction();
        return result;
      } catch (error) {
        await runner.rollbackTransaction().catch(() => undefined);
        throw error;
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * BEGIN IMMEDIATE takes the write lock first (waiting up to the busy
   * timeout), so another process writing the same file cannot make this
   * transaction fail half-way when it upgrades from reading to writing.
   */
  private async sqliteTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.writer!.createQueryRunner();
    await runner.query('BEGIN IMMEDIATE');
    try {
      const result = await work(runner.manager);
      await runner.query('COMMIT');
      return result;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** Deadlock (1213), lock wait timeout (1205), or SQLite busy/locked: worth running the transaction again. */
export function isTransient(error: unknown): boolean {
  const e = ((error as { driverError?: unknown })?.driverError ?? error) as { errno?: unknown; code?: unknown } | null;
  if (!e) return false;
  return e.errno === 1213 || e.errno === 1205 || (typeof e.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(e.code));
}
