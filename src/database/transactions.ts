import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, type OnApplicationShutdown, type OnModuleInit, Optional } from '@nestjs/common';
import { AppConfig } from '../config/config.js';
import { DataSource, type EntityManager, type SelectQueryBuilder, type ObjectLiteral } from 'typeorm';
import { isMysql } from './dialect.js';
import { isGaleraNode } from './galera.js';
import { beginMysql } from './mysql-begin.js';
import { DatabaseMetrics } from './reporting.js';
import { DEFAULT_RETRY_BUDGET_MS, GALERA_RETRY_BUDGET_MS, type RetryBudget, retryTransient } from './retry.js';
import { SqliteWriter } from './sqlite-writer.js';
import { OpenTransaction, type TransactionContext } from './transaction-context.js';

/**
 * The unit of work of the request in progress, the one value the runner's
 * AsyncLocalStorage holds: the transaction its writes share, once begun
 * (everything that transaction collects is in its context, `open.ctx`).
 */
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
 * Each transaction has its context (transaction-context.ts), made here when
 * it begins and passed to the work (its manager is `ctx.manager`): the writes held back
 * for the commit, the counter changes, the outbox's numbering, the steps
 * after commit.
 *
 * A unit of work (`unit`) spans one write request: the first `run` inside it
 * begins the transaction, every later `run` joins it (and gets the same
 * context), and the unit commits it only after the request's own steps (a
 * stored answer to replay, and whatever else must commit with the change)
 * have been written in it. Either all of it commits or none does. The
 * transaction begins lazily, at the first `run`, so reads a service makes
 * before it (on other pooled connections) do not hold a connection they
 * would wait on themselves.
 *
 * MySQL/MariaDB: READ COMMITTED on the shared pool (each connection's session,
 * session.ts; mysql-begin.ts); callers lock the rows they read with
 * `forUpdate`, always in the same order.
 *
 * SQLite: transactions run on a writer connection of their own, one at a
 * time (sqlite-writer.ts); reads keep the main connection and see only
 * committed data (WAL).
 */
@Injectable()
export class TransactionRunner implements OnModuleInit, OnApplicationShutdown {
  private writer: SqliteWriter | null = null;
  /** The unit of work of the request in progress. */
  private readonly units = new AsyncLocalStorage<Unit | undefined>();
  private readonly runAfterCommit = (steps: Array<() => void>) => this.committed(steps);

  private budget: RetryBudget;

  constructor(
    private readonly dataSource: DataSource,
    @Optional() private readonly retries?: DatabaseMetrics,
    @Optional() config?: AppConfig,
  ) {
    const set = config?.txRetryBudgetMs ?? null;
    this.budget = set === null ? { ms: DEFAULT_RETRY_BUDGET_MS, source: 'default' } : { ms: set, source: 'TX_RETRY_BUDGET_MS' };
  }

  /** The retry budget in force: TX_RETRY_BUDGET_MS when set, else the default for the database found at start. */
  get retryBudget(): RetryBudget {
    return this.budget;
  }

  /** Whether the service's database is MySQL/MariaDB (`isMysql`, dialect.ts). */
  get isMysql(): boolean {
    return isMysql(this.dataSource);
  }

  async onModuleInit(): Promise<void> {
    if (this.isMysql) {
      if (this.budget.source === 'default' && (await isGaleraNode(this.dataSource))) this.budget = { ms: GALERA_RETRY_BUDGET_MS, source: 'Galera default' };
      return;
    }
    this.writer = new SqliteWriter();
    await this.writer.open(this.dataSource.options);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.writer?.close();
  }

  /**
   * Runs `work` in a transaction, with its context (its manager is
   * `ctx.manager`, for the repositories the context is handed to).
   * Outside a unit of work the transaction commits when `work` resolves, and
   * a transient failure runs `work` again within the retry budget. Inside
   * one, the first `run` begins the unit's transaction and leaves it open for
   * the unit to commit; a later `run` joins it; a transient failure fails the
   * unit, which runs again as a whole (`retrying`).
   */
  async run<T>(work: (ctx: TransactionContext) => Promise<T>): Promise<T> {
    const unit = this.units.getStore();
    if (unit?.open) {
      const { ctx } = unit.open;
      // The unit's transaction is open: what an earlier piece of it held back for the commit goes now, so that this one reads it.
      await ctx.sendHeld();
      return work(ctx);
    }
    const once = async () => {
      let tx: OpenTransaction | undefined;
      try {
        tx = await this.begin();
        const result = await work(tx.ctx);
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
  async unit<T>(handler: () => Promise<T>, beforeCommit: Array<(ctx: TransactionContext, result: T) => Promise<void>> = []): Promise<T> {
    const unit: Unit = {};
    try {
      const result = await this.units.run(unit, handler);
      const steps = async (ctx: TransactionContext) => {
        for (const step of beforeCommit) await step(ctx, result);
      };
      if (unit.open) {
        await steps(unit.open.ctx);
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
   * source's. The one way a read finds the unit's transaction without being
   * handed its context: docs/architecture.md, "The transaction context".
   */
  get reader(): EntityManager {
    return this.units.getStore()?.open?.ctx.manager ?? this.dataSource.manager;
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
    return this.units.run(undefined, () => this.run((ctx) => work(ctx.manager)));
  }

  /** Whether the caller runs inside a unit of work. */
  get inUnit(): boolean {
    return this.units.getStore() !== undefined;
  }

  /** The same for a hand-written SELECT: the clause that ends it (empty on SQLite). */
  get lockClause(): string {
    return this.isMysql ? ' FOR UPDATE' : '';
  }

  /** The clause that ends a hand-written SELECT holding its rows in share mode until the transaction ends (empty on SQLite). */
  get shareClause(): string {
    return this.isMysql ? ' LOCK IN SHARE MODE' : '';
  }

  /** Locks the rows a query reads until the transaction ends (SQLite's single writer already excludes the rest). */
  forUpdate<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
    return this.isMysql ? qb.setLock('pessimistic_write') : qb;
  }

  /** A transaction, begun on the pool (MySQL/MariaDB) or in the writer's turn (SQLite), with a new context. */
  private async begin(): Promise<OpenTransaction> {
    return new OpenTransaction(await (this.isMysql ? beginMysql(this.dataSource) : this.writer!.begin()), this.runAfterCommit);
  }

  /** Runs a committed transaction's steps after commit (its context's `afterCommit`), outside the unit of work that committed it. */
  private committed(steps: Array<() => void>): void {
    for (const step of steps) {
      // Outside the unit: with no store, a step never joins the transaction that just committed.
      this.units.run(undefined, () => {
        try {
          step();
        } catch {
          // The step reports its own failures; the commit stands.
        }
      });
    }
  }
}
