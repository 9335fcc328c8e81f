import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { GatheredCounts } from './counters.js';
import { letOthersRun } from './event-loop.js';
import { insertStatement, type Statement } from './statements.js';

/**
 * How many rows one INSERT writes at most. SQLite refuses a statement with
 * more than 32,766 parameters (a ledger row has 17), and smaller statements
 * keep MySQL's packets small too: thousands of rows go in several statements
 * of one transaction.
 */
export const ROWS_PER_INSERT = 500;

/**
 * Everything one transaction collects besides the statements it runs at
 * once: the writes it holds back for the commit, its counter changes, the
 * numbering of its outbox events, and what to do once it has committed. The
 * TransactionRunner makes one for each transaction it begins (a retried
 * attempt gets a new one) and passes it to the work (`run((ctx) => …)`;
 * the manager is `ctx.manager`); every `run` of a request's unit of work gets the
 * unit's one. Code that needs it takes it as an argument: nothing finds it
 * by its manager. Once the transaction has ended it refuses more.
 */
export class TransactionContext {
  /** Writes held back until just before the COMMIT (see `later`). */
  private held: Statement[] = [];
  /** New rows kept for the commit, by entity, in the order they came (see `insertWithCommit`). */
  private inserts = new Map<EntityTarget<ObjectLiteral>, ObjectLiteral[]>();
  private gathered: GatheredCounts | null = null;
  private committed: Array<() => void> | null = null;
  private ended = false;
  /**
   * The outbox's numbering of this transaction's events (events/outbox.ts):
   * null until it records the first. Only the outbox reads or sets it.
   */
  outbox: { unitId: string; next: number } | null = null;

  constructor(
    /** The transaction's manager: every statement of the transaction runs through it. */
    readonly manager: EntityManager,
  ) {}

  /**
   * A write sent with the commit, just before COMMIT, one statement per
   * query, after whatever the transaction reads and locks. What may go here:
   * a write to rows the transaction has already locked (a picked lot, a
   * locked stock_level row), and whose result (changed rows) is not needed
   * (new rows nothing reads: `insertWithCommit`). A
   * read in the same transaction would not see it, so the runner sends what
   * is held before the next piece of work of a unit (each operation of a
   * Batch).
   */
  later(statement: Statement): void {
    this.open();
    this.held.push(statement);
  }

  /**
   * New rows that nothing in the transaction ever reads (ledger rows, outbox
   * events), kept until the commit and written there after the held-back
   * writes: each entity's rows as few multi-row INSERTs as their columns
   * allow (rows in the order they came; a run of rows that set the same
   * columns, at most ROWS_PER_INSERT, is one statement). Unlike `later`, they
   * are not sent between the pieces of a unit of work, so a Batch of fifty
   * operations writes its ledger in one statement instead of fifty. Their
   * generated keys are not known to the transaction.
   */
  insertWithCommit<T extends ObjectLiteral>(entity: EntityTarget<T>, rows: Array<Partial<T>>): void {
    this.open();
    let kept = this.inserts.get(entity);
    if (!kept) this.inserts.set(entity, (kept = []));
    for (const row of rows) kept.push(row);
  }

  /** The counter changes the transaction gathers and writes with its commit, after the held-back writes (counters.ts). */
  get counts(): GatheredCounts {
    this.open();
    return (this.gathered ??= new GatheredCounts());
  }

  /**
   * Calls `step` once the transaction has committed (never when it rolls
   * back), outside any unit of work, without waiting for it: what a change
   * asks to be done only once it is visible to everyone (the outbox's
   * events get their seq). A failing step is the step's own business.
   */
  afterCommit(step: () => void): void {
    this.open();
    (this.committed ??= []).push(step);
  }

  /** The runner's: sends the writes held so far, in order, one statement per query; the rest of the transaction may read them then. */
  async sendHeld(): Promise<void> {
    if (!this.held.length) return;
    const held = this.held;
    this.held = [];
    for (const { sql, params } of held) {
      // An operation over thousands of lots holds back dozens of statements: the event loop turns between them (event-loop.ts).
      await letOthersRun();
      await this.manager.query(sql, params);
    }
  }

  /**
   * The runner's: what goes just before COMMIT, sent: the held-back writes,
   * the new rows, then the counters. The new rows' INSERTs are made one at a
   * time, each sent before the next is made, the event loop turning between
   * them (an Issue of 100,000 lots keeps 100,000 ledger rows).
   */
  async sendWithCommit(): Promise<void> {
    await this.sendHeld();
    const inserts = this.inserts;
    this.inserts = new Map();
    for (const [entity, rows] of inserts) {
      for (const { sql, params } of insertsOf(this.manager, entity, rows)) {
        await letOthersRun();
        await this.manager.query(sql, params);
      }
    }
    if (this.gathered) this.held.push(...this.gathered.statements(this.manager));
    this.gathered = null;
    await this.sendHeld();
  }

  /** The runner's: the transaction has ended; the steps after commit, taken, when it committed. */
  end(): Array<() => void> {
    this.ended = true;
    const steps = this.committed ?? [];
    this.held = [];
    this.inserts.clear();
    this.gathered = null;
    this.committed = null;
    return steps;
  }

  private open(): void {
    if (this.ended) throw new Error('the transaction of this context has ended');
  }
}

/**
 * The INSERTs of an entity's new rows, in their order, each made when the
 * one before it has been taken: a run of consecutive rows that set the same
 * columns (insertStatement takes its columns from the first row), at most
 * ROWS_PER_INSERT, is one statement.
 */
export function* insertsOf(m: EntityManager, entity: EntityTarget<ObjectLiteral>, rows: ObjectLiteral[]): Generator<Statement> {
  let run: ObjectLiteral[] = [];
  let shape = '';
  for (const row of rows) {
    const set = columnsSet(row);
    if (run.length && (set !== shape || run.length === ROWS_PER_INSERT)) {
      yield insertStatement(m, entity, run);
      run = [];
    }
    shape = set;
    run.push(row);
  }
  if (run.length) yield insertStatement(m, entity, run);
}

/** The properties a row sets (not undefined), as one text. */
function columnsSet(row: ObjectLiteral): string {
  let set = '';
  for (const key in row) if (row[key] !== undefined) set += `${key},`;
  return set;
}

/** A transaction as a driver begins it (mysql-begin.ts, sqlite-writer.ts): its manager and how it ends. */
export interface Begun {
  manager: EntityManager;
  commit(): Promise<unknown>;
  rollback(): Promise<unknown>;
  /** Gives back the connection (MySQL/MariaDB) or the writer's turn (SQLite). */
  release(): Promise<void>;
}

/**
 * A transaction the runner has begun and not yet ended, with its context. It
 * ends once: `commit` (the held-back writes and the counters, then COMMIT; a
 * failed commit rolls back) or `rollback` (also after a failed commit), then
 * its connection or turn is released. A second end does nothing.
 */
export class OpenTransaction {
  readonly ctx: TransactionContext;
  private done = false;

  constructor(
    private readonly begun: Begun,
    /** Runs the steps after commit (the runner: outside any unit of work). */
    private readonly afterCommit: (steps: Array<() => void>) => void,
  ) {
    this.ctx = new TransactionContext(begun.manager);
  }

  async commit(): Promise<void> {
    if (this.done) return;
    this.done = true;
    let steps: Array<() => void> = [];
    try {
      await this.ctx.sendWithCommit();
      await this.begun.commit();
    } catch (error) {
      await this.begun.rollback().catch(() => undefined);
      throw error;
    } finally {
      // Taken whatever happened: after a failure nothing of the context is used again.
      steps = this.ctx.end();
      await this.begun.release();
    }
    if (steps.length) this.afterCommit(steps);
  }

  async rollback(): Promise<void> {
    if (this.done) return;
    this.done = true;
    try {
      await this.begun.rollback();
    } catch {
      // Nothing more to do: the caller reports the failure that made it roll back.
    } finally {
      this.ctx.end();
      await this.begun.release().catch(() => undefined);
    }
  }
}
