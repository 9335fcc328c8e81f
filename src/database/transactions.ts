import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, type OnApplicationShutdown, type OnModuleInit, Optional } from '@nestjs/common';
import { AppConfig } from '../config/config.js';
import { DataSource, type EntityManager, type QueryRunner, type SelectQueryBuilder, type ObjectLiteral } from 'typeorm';
import { countStatements, deferCounts, dropCounts } from './counters.js';
import { letOthersRun } from './event-loop.js';
import { isGaleraNode } from './galera.js';
import { DEFAULT_RETRY_BUDGET_MS, GALERA_RETRY_BUDGET_MS, type RetryBudget, RetryObserver, retryTransient, transientCause } from './retry.js';
import { closeTail, openTail, type Statement, takeTail } from './statements.js';

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
 * transaction, run again on a transient failure (a deadlock, which on Galera
 * includes a certification failure at COMMIT; a lock wait timeout; MySQL
 * Group Replication's 3101; TiDB's write conflict 9007; a busy SQLite) with
 * full-jitter exponential backoff for as long as the retry budget
 * (TX_RETRY_BUDGET_MS) allows, and never shown to the client as a 500: once
 * the budget is spent, TooMuchContention (409) (retry.ts).
 *
 * A unit of work (`unit`) spans one write request: the first `run` inside it
 * begins the transaction, every later `run` joins it, and the unit commits it
 * only after the request's own steps (a stored answer to replay, and
 * whatever else must commit with the change) have been written in it. Either
 * all of it commits or none does. The transaction begins lazily, at the first
 * `run`, so reads a service makes before it (on other pooled connections) do
 * not hold a connection they would wait on themselves.
 *
 * MySQL/MariaDB: READ COMMITTED on the shared pool (each connection's session,
 * session.ts); callers lock the rows they read with `forUpdate`, always in the
 * same order.
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
  /** The unit of work of the request in progress. */
  private readonly units = new AsyncLocalStorage<Unit | undefined>();
  /** What to do once a transaction (known by its manager) has committed: see `afterCommit`. */
  private readonly afterCommits = new WeakMap<EntityManager, Array<() => void>>();

  private budget: RetryBudget;

  constructor(
    private readonly dataSource: DataSource,
    @Optional() private readonly retries?: RetryObserver,
    @Optional() config?: AppConfig,
  ) {
    const set = config?.txRetryBudgetMs ?? null;
    this.budget = set === null ? { ms: DEFAULT_RETRY_BUDGET_MS, source: 'default' } : { ms: set, source: 'TX_RETRY_BUDGET_MS' };
  }

  /** The retry budget in force: TX_RETRY_BUDGET_MS when set, else the default for the database found at start. */
  get retryBudget(): RetryBudget {
    return this.budget;
  }

  get isMysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  async onModuleInit(): Promise<void> {
    if (this.isMysql) {
      if (this.budget.source === 'default' && (await isGaleraNode(this.dataSource))) this.budget = { ms: GALERA_RETRY_BUDGET_MS, source: 'Galera default' };
      return;
    }
    // No busy timeout on the writer: better-sqlite3 would wait for another writer's lock synchronously, stopping the
    // event loop (and, in this process, the writer it waits for); beginSqlite waits for it asynchronously instead.
    this.writer = new DataSource({ ...this.dataSource.options, migrationsRun: false, synchronize: false, timeout: 0 } as typeof this.dataSource.options);
    await this.writer.initialize();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.writer?.isInitialized) await this.writer.destroy();
  }

  /**
   * Runs `work` in a transaction. Outside a unit of work the transaction
   * commits when `work` resolves, and a transient failure runs `work` again
   * within the retry budget. Inside one, the first `run` begins the unit's
   * transaction and leaves it open for the unit to commit; a later `run`
   * joins it; a transient failure fails the unit, which runs again as a whole
   * (`retrying`).
   */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const unit = this.units.getStore();
    if (unit?.open) {
      // The unit's transaction is open: what an earlier piece of it held back for the commit goes now, so that this one reads it.
      await this.send(unit.open.manager, takeTail(unit.open.manager));
      return work(unit.open.manager);
    }
    const once = async () => {
      let tx: OpenTransaction | undefined;
      try {
        tx = await this.begin();
        const result = await work(tx.manager);
        if (unit) unit.open = tx;
        else await tx.commit();
        return result;
      } catch (error) {
        await tx?.rollback();
        throw error;
      }
    };
    return unit ? once() : this.retrying(once);
  }

  /**
   * Runs `attempt` until it succeeds, fails for good, or meets transient
   * failures for longer than the retry budget (retry.ts `retryTransient`):
   * each failure is counted in the metrics; once the budget is spent the
   * client gets TooMuchContention (409). An attempt must leave nothing behind
   * when it fails (its transaction rolled back).
   */
  retrying<T>(attempt: () => Promise<T>): Promise<T> {
    return retryTransient(attempt, this.budget.ms, this.retries);
  }

  /**
   * One attempt of a unit of work: `handler` runs with the unit as its
   * context; then, in the transaction its writes began, the steps of
   * `beforeCommit` (which the handler may still add to) write what must
   * commit with them, in order, and the transaction commits. If nothing in
   * `handler` began a transaction, the steps (if any) get one of their own.
   * On any failure everything is rolled back and the error is passed on as it
   * is: the caller (the HTTP unit of work) runs a unit that met a transient
   * failure again, as a whole, through `retrying`.
   */
  async unit<T>(handler: () => Promise<T>, beforeCommit: Array<(manager: EntityManager, result: T) => Promise<void>> = []): Promise<T> {
    const unit: Unit = {};
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
      throw error;
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

  /**
   * A write of its own, never part of the caller's unit of work (a token, an
   * Idempotency-Key's claim or release, an admin change). On MySQL/MariaDB it
   * runs on the pool as it is, each statement committing by itself. On
   * SQLite it waits for the writer's turn and runs in a transaction of the
   * writer's connection like `run`: a write on the main connection while a
   * transaction holds the write lock would wait for that lock synchronously
   * (better-sqlite3's busy timeout), stopping the event loop, and with it the
   * transaction that holds the lock, which lets the loop turn during long
   * work (event-loop.ts). Every write of the service on SQLite goes through
   * the writer's turn, by `run` or by this.
   */
  async alone<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.isMysql) return work(this.dataSource.manager);
    // Waiting for the writer's turn while this very request holds it would wait for ever.
    if (this.units.getStore()?.open) throw new Error('TransactionRunner.alone() called inside a unit of work whose transaction is open');
    return this.units.run(undefined, () => this.run(work));
  }

  /** Whether the caller runs inside a unit of work. */
  get inUnit(): boolean {
    return this.units.getStore() !== undefined;
  }

  /**
   * Calls `step` once the transaction of `m` has committed (never when it
   * rolls back), outside any unit of work, without waiting for it: what a
   * change asks to be done only once it is visible to everyone (the outbox's
   * events get their seq). A failing step is the step's own business.
   */
  afterCommit(m: EntityManager, step: () => void): void {
    const steps = this.afterCommits.get(m);
    if (steps) steps.push(step);
    else this.afterCommits.set(m, [step]);
  }

  /** The same for a hand-written SELECT: the clause that ends it (empty on SQLite). */
  get lockClause(): string {
    return this.isMysql ? ' FOR UPDATE' : '';
  }

  /** Locks the rows a query reads until the transaction ends (SQLite's single writer already excludes the rest). */
  forUpdate<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
    return this.isMysql ? qb.setLock('pessimistic_write') : qb;
  }

  private async begin(): Promise<OpenTransaction> {
    const tx = await (this.isMysql ? this.beginMysql() : this.beginSqlite());
    return {
      ...tx,
      commit: async () => {
        await tx.commit();
        this.committed(tx.manager);
      },
      // A rolled-back transaction's steps are forgotten (SQLite's writer reuses its manager for the next one).
      rollback: async () => {
        this.afterCommits.delete(tx.manager);
        await tx.rollback();
      },
    };
  }

  /** Runs held-back writes now, one statement per query. */
  private async send(m: EntityManager, tail: Statement[]): Promise<void> {
    for (const { sql, params } of tail) {
      // An operation over thousands of lots holds back dozens of statements: the event loop turns between them (event-loop.ts).
      await letOthersRun();
      await m.query(sql, params);
    }
  }

  /** Runs the steps `afterCommit` registered for the transaction of `m`, outside the unit of work that committed it. */
  private committed(m: EntityManager): void {
    const steps = this.afterCommits.get(m);
    if (!steps) return;
    this.afterCommits.delete(m);
    for (const step of steps) {
      // run(undefined), not exit(): with this the only AsyncLocalStorage, exit() turns the promise hooks of the
      // whole process off and on again around each step.
      this.units.run(undefined, () => {
        try {
          step();
        } catch {
          // The step reports its own failures; the commit stands.
        }
      });
    }
  }

  /** A transaction on a pooled connection (whose session is READ COMMITTED: session.ts), through the query runner's own calls. */
  private async beginMysql(): Promise<OpenTransaction> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
    } catch (error) {
      await runner.release();
      throw error;
    }
    return ended(runner.manager, {
      commit: async (tail) => {
        await this.send(runner.manager, tail);
        await runner.commitTransaction();
      },
      rollback: () => runner.rollbackTransaction(),
      release: () => runner.release(),
    });
  }

  /**
   * Waits for the writer's turn, then BEGIN IMMEDIATE takes the write lock
   * (waiting for it asynchronously: beginImmediate), so another process writing the same
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
      await beginImmediate(runner);
    } catch (error) {
      pass();
      throw error;
    }
    return ended(runner.manager, {
      commit: async (tail) => {
        await this.send(runner.manager, tail);
        await runner.query('COMMIT');
      },
      rollback: () => runner.query('ROLLBACK'),
      release: async () => pass(),
    });
  }
}

/**
 * An open transaction that ends once: commit, or rollback (also after a failed
 * commit), then its connection or turn is released. A second end does nothing.
 * Its list-counter changes are gathered (`deferCounts`) and written with the
 * commit, after the writes it held back (`later`), one statement at a time.
 */
function ended(
  manager: EntityManager,
  how: { commit: (tail: Statement[]) => Promise<unknown>; rollback: () => Promise<unknown>; release: () => Promise<void> },
): OpenTransaction {
  deferCounts(manager);
  openTail(manager);
  // The writes held back (statements.ts `later`), then the counters, then COMMIT.
  const commit = () => how.commit([...takeTail(manager), ...countStatements(manager)]);
  let done = false;
  const finish = async (end: () => Promise<unknown>) => {
    if (done) return;
    done = true;
    try {
      await end();
    } catch (error) {
      if (end === commit) await how.rollback().catch(() => undefined);
      throw error;
    } finally {
      dropCounts(manager);
      closeTail(manager);
      await how.release();
    }
  };
  return {
    manager,
    commit: () => finish(commit),
    rollback: () => finish(how.rollback).catch(() => undefined),
  };
}

/** How long SQLite's BEGIN IMMEDIATE waits for another connection's write lock (another process, or another instance in this one). */
const SQLITE_LOCK_WAIT_MS = 10_000;

/**
 * BEGIN IMMEDIATE, waiting for the file's write lock asynchronously: tried
 * again after a short pause (5 ms, doubling up to 100 ms) while another
 * connection holds the lock, for up to SQLITE_LOCK_WAIT_MS, then the busy
 * error, which `retrying` treats as transient. A synchronous busy timeout
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
