import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager, type SelectQueryBuilder, type ObjectLiteral } from 'typeorm';
import { DomainError } from '../errors.js';

export class TooMuchContention extends DomainError {
  constructor() {
    super('conflict', 'The request met concurrent changes and could not be completed; retry it.');
  }
}

const MAX_ATTEMPTS = 6;

/** A transaction begun and not yet ended: what a unit of work commits or rolls back once the request is done. */
interface OpenTransaction {
  manager: EntityManager;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** The unit of work of the request in progress (AsyncLocalStorage): the transaction its writes share, once begun. */
interface Unit {
  open?: OpenTransaction;
}

/**
 * The one way a change is written (DECISIONS "Inventory"): a single
 * transaction, retried a bounded number of times on a deadlock, a lock wait
 * timeout or a busy database, and never shown to the client as a 500.
 *
 * A unit of work (`unit`) spans one write request: the first `run` inside it
 * begins the transaction, every later `run` joins it, and the unit commits it
 * only after the request's own steps (a stored answer to replay, and
 * whatever else must commit with the change) have been written in it. Either
 * all of it commits or none does. The transaction begins lazily, at the first
 * `run`, so reads a service makes before it (on other pooled connections) do
 * not hold a connection they would wait on themselves.
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
  /** SQLite: the turn of the transaction last queued; the next one begins when it ends. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Pooled MySQL connections whose session is already READ COMMITTED. */
  private readonly readCommitted = new WeakSet<object>();
  /**
   * The unit of work of the request in progress. Node tracks the context of
   * every promise while an AsyncLocalStorage is enabled, a cost each request
   * would pay; so it is enabled only while some unit runs (`running` > 0) and
   * disabled again when the last one ends: reads between writes run without it.
   */
  private readonly units = new AsyncLocalStorage<Unit>();
  private running = 0;

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

  /**
   * Runs `work` in a transaction. Outside a unit of work the transaction
   * commits when `work` resolves. Inside one, the first `run` begins the
   * unit's transaction and leaves it open for the unit to commit; a later
   * `run` joins it (and is not retried on its own: the unit fails as a whole).
   */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const unit = this.units.getStore();
    if (unit?.open) return work(unit.open.manager);
    for (let attempt = 1; ; attempt++) {
      let tx: OpenTransaction | undefined;
      try {
        tx = await this.begin();
        const result = await work(tx.manager);
        if (unit) unit.open = tx;
        else await tx.commit();
        return result;
      } catch (error) {
        await tx?.rollback();
        if (!isTransient(error)) throw error;
        if (attempt >= MAX_ATTEMPTS) throw new TooMuchContention();
        await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
      }
    }
  }

  /**
   * One unit of work: `handler` runs with the unit as its context; then, in
   * the transaction its writes began, the steps of `beforeCommit` (which the
   * handler may still add to) write what must commit with them, in order, and
   * the transaction commits. If nothing in `handler` began a transaction, the
   * steps (if any) get one of their own. On any failure everything is rolled
   * back and the error is passed on (a deadlock at this stage as
   * TooMuchContention, which asks the client to retry).
   */
  async unit<T>(handler: () => Promise<T>, beforeCommit: Array<(manager: EntityManager, result: T) => Promise<void>> = []): Promise<T> {
    const unit: Unit = {};
    this.running++;
    try {
      const result = await this.units.run(unit, handler);
      const steps = async (m: EntityManager) => {
        for (const step of beforeCommit) await step(m, result);
      };
      if (unit.open) {
        await steps(unit.open.manager);
        await unit.open.commit();
      } else if (beforeCommit.length) {
        await this.run(steps);
      }
      return result;
    } catch (error) {
      await unit.open?.rollback();
      throw isTransient(error) ? new TooMuchContention() : error;
    } finally {
      // No unit runs: nothing needs its context until the next one begins (run() enables it again).
      if (--this.running === 0) this.units.disable();
    }
  }

  /**
   * The manager a read should use: the transaction a unit of work has begun,
   * when there is one (a read later in the same request, e.g. the next
   * operation of a batch, then never waits for a second pooled connection
   * while holding one, and sees the request's own writes); else the data
   * source's.
   */
  get reader(): EntityManager {
    return this.units.getStore()?.open?.manager ?? this.dataSource.manager;
  }

  /** Whether the caller runs inside a unit of work. */
  get inUnit(): boolean {
    return this.units.getStore() !== undefined;
  }

  /** The same for a hand-written SELECT: the clause that ends it (empty on SQLite). */
  get lockClause(): string {
    return this.isMysql ? ' FOR UPDATE' : '';
  }

  /** Locks the rows a query reads until the transaction ends (SQLite's single writer already excludes the rest). */
  forUpdate<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
    return this.isMysql ? qb.setLock('pessimistic_write') : qb;
  }

  private begin(): Promise<OpenTransaction> {
    return this.isMysql ? this.beginMysql() : this.beginSqlite();
  }

  /**
   * READ COMMITTED is set once per pooled connection, for its session, rather
   * than before every transaction: one round trip less for every write.
   */
  private async beginMysql(): Promise<OpenTransaction> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const connection = (await runner.connect()) as object;
      if (!this.readCommitted.has(connection)) {
        await runner.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
        this.readCommitted.add(connection);
      }
      await runner.startTransaction();
    } catch (error) {
      await runner.release();
      throw error;
    }
    return ended(runner.manager, {
      commit: () => runner.commitTransaction(),
      rollback: () => runner.rollbackTransaction(),
      release: () => runner.release(),
    });
  }

  /**
   * Waits for the writer's turn, then BEGIN IMMEDIATE takes the write lock
   * (waiting up to the busy timeout), so another process writing the same
   * file cannot make this transaction fail half-way when it upgrades from
   * reading to writing. The turn passes on when the transaction ends.
   */
  private async beginSqlite(): Promise<OpenTransaction> {
    let pass!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => (pass = resolve));
    await previous;
    const runner = this.writer!.createQueryRunner();
    try {
      await runner.query('BEGIN IMMEDIATE');
    } catch (error) {
      pass();
      throw error;
    }
    return ended(runner.manager, {
      commit: () => runner.query('COMMIT'),
      rollback: () => runner.query('ROLLBACK'),
      release: async () => pass(),
    });
  }
}

/**
 * An open transaction that ends once: commit, or rollback (also after a failed
 * commit), then its connection or turn is released. A second end does nothing.
 */
function ended(
  manager: EntityManager,
  how: { commit: () => Promise<unknown>; rollback: () => Promise<unknown>; release: () => Promise<void> },
): OpenTransaction {
  let done = false;
  const finish = async (end: () => Promise<unknown>) => {
    if (done) return;
    done = true;
    try {
      await end();
    } catch (error) {
      if (end === how.commit) await how.rollback().catch(() => undefined);
      throw error;
    } finally {
      await how.release();
    }
  };
  return {
    manager,
    commit: () => finish(how.commit),
    rollback: () => finish(how.rollback).catch(() => undefined),
  };
}

/** Deadlock (1213), lock wait timeout (1205), or SQLite busy/locked: worth running the transaction again. */
export function isTransient(error: unknown): boolean {
  const e = ((error as { driverError?: unknown })?.driverError ?? error) as { errno?: unknown; code?: unknown } | null;
  if (!e) return false;
  return e.errno === 1213 || e.errno === 1205 || (typeof e.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(e.code));
}
