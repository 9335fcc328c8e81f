import { DataSource, type EntityManager } from 'typeorm';
import { ENTITIES } from '../entities.js';
import { LedgerEntry } from '../inventory/inventory.entities.js';
import { SQLITE_MIGRATIONS } from './migrations/sqlite/index.js';
import { type Begun, insertsOf, OpenTransaction, ROWS_PER_INSERT } from './transaction-context.js';

/** A begun transaction whose manager and ends write down what they are asked, in order. */
function begun(failAt?: string): { begun: Begun; log: string[] } {
  const log: string[] = [];
  const act = async (what: string) => {
    log.push(what);
    if (what === failAt) throw new Error(`${what} failed`);
  };
  const manager = { connection: { options: { type: 'mysql' } }, query: (sql: string) => act(sql) } as unknown as EntityManager;
  return { log, begun: { manager, commit: () => act('COMMIT'), rollback: () => act('ROLLBACK'), release: () => act('release') } };
}

describe('TransactionContext', () => {
  it('sends the held-back writes, then the counters (stock_count before list_count), then COMMIT; the steps after commit once it committed', async () => {
    const { begun: b, log } = begun();
    const after: string[] = [];
    const tx = new OpenTransaction(b, (steps) => steps.forEach((s) => s()));
    const { ctx } = tx;
    expect(ctx.manager).toBe(b.manager);
    ctx.counts.add([{ list: 'lots', scope: '1', by: 1 }]);
    ctx.later({ sql: 'UPDATE a', params: [] });
    ctx.counts.addStockRow(1, true);
    ctx.afterCommit(() => after.push('first'));
    ctx.later({ sql: 'INSERT b', params: [] });
    ctx.afterCommit(() => after.push('second'));
    expect(log).toEqual([]);
    await tx.commit();
    expect(log.map((s) => s.split(' (')[0])).toEqual(['UPDATE a', 'INSERT b', 'INSERT INTO `stock_count`', 'INSERT INTO list_count', 'COMMIT', 'release']);
    expect(after).toEqual(['first', 'second']);
  });

  it('sends what is held when asked (a further piece of the unit reads it) and keeps what is held after', async () => {
    const { begun: b, log } = begun();
    const tx = new OpenTransaction(b, () => undefined);
    tx.ctx.later({ sql: 'UPDATE a', params: [] });
    await tx.ctx.sendHeld();
    expect(log).toEqual(['UPDATE a']);
    tx.ctx.later({ sql: 'UPDATE b', params: [] });
    await tx.commit();
    expect(log).toEqual(['UPDATE a', 'UPDATE b', 'COMMIT', 'release']);
  });

  it('runs no step after a rollback, nor after a failed commit, which rolls back and releases', async () => {
    const steps: Array<Array<() => void>> = [];
    const rolled = begun();
    const tx = new OpenTransaction(rolled.begun, (s) => steps.push(s));
    tx.ctx.afterCommit(() => undefined);
    tx.ctx.later({ sql: 'UPDATE a', params: [] });
    await tx.rollback();
    await tx.commit(); // ended already: nothing more
    expect(rolled.log).toEqual(['ROLLBACK', 'release']);

    const failing = begun('UPDATE a');
    const tx2 = new OpenTransaction(failing.begun, (s) => steps.push(s));
    tx2.ctx.afterCommit(() => undefined);
    tx2.ctx.later({ sql: 'UPDATE a', params: [] });
    await expect(tx2.commit()).rejects.toThrow('UPDATE a failed');
    expect(failing.log).toEqual(['UPDATE a', 'ROLLBACK', 'release']);
    expect(steps).toEqual([]);
  });

  it('refuses more once its transaction has ended: nothing collected after the end is lost unseen', async () => {
    const { begun: b } = begun();
    const tx = new OpenTransaction(b, () => undefined);
    await tx.commit();
    expect(() => tx.ctx.later({ sql: 'UPDATE a', params: [] })).toThrow('has ended');
    expect(() => tx.ctx.counts).toThrow('has ended');
    expect(() => tx.ctx.afterCommit(() => undefined)).toThrow('has ended');
  });
});

describe('new rows kept for the commit (insertWithCommit, insertsOf)', () => {
  let ds: DataSource;
  beforeAll(async () => {
    // The schema as the service makes it: the dialect's migrations.
    ds = await new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: ENTITIES, migrations: SQLITE_MIGRATIONS, migrationsRun: true }).initialize();
  });
  afterAll(() => ds.destroy());

  const ledger = (n: number, remark?: string): Partial<LedgerEntry> => ({
    operationId: `op-${n}`,
    operation: 'receive',
    partNo: 1,
    recNo: n,
    fromRecNo: null,
    fromWid: null,
    fromSpot: null,
    toWid: 1,
    toSpot: '',
    units: n,
    reasonCode: null,
    reference: '',
    remark,
    extra: null,
    clientId: 'c',
    requestKey: null,
    created: new Date(),
  });

  it('one statement per run of rows that set the same columns, at most ROWS_PER_INSERT rows; every row written, in order', async () => {
    const rows = [...Array.from({ length: ROWS_PER_INSERT + 3 }, (_, i) => ledger(i + 1, 'r')), ledger(ROWS_PER_INSERT + 4), ledger(ROWS_PER_INSERT + 5, 'r')];
    const statements = [...insertsOf(ds.manager, LedgerEntry, rows)];
    expect(statements.map((s) => s.params.length / (s.sql.match(/\(\?/g) ?? []).length)).toEqual([17, 17, 16, 17]);
    expect(statements.map((s) => (s.sql.match(/\(\?/g) ?? []).length)).toEqual([ROWS_PER_INSERT, 3, 1, 1]);
    for (const { sql, params } of statements) await ds.query(sql, params);
    const written: Array<{ id: number; recNo: number; remark: string }> = await ds.query('SELECT id, recNo, remark FROM ledger_entry ORDER BY id');
    expect(written.map((r) => r.recNo)).toEqual(rows.map((r) => r.recNo));
    // The row without a remark takes the column's default; the rows with one keep it.
    expect(written.map((r) => r.remark)).toEqual(rows.map((r) => r.remark ?? ''));
  });

  it('keeps them past sendHeld (a further piece of a unit) and writes them with the commit, after the held-back writes and before the counters', async () => {
    const { begun: b, log } = begun();
    (b.manager as unknown as { connection: DataSource }).connection = ds;
    const tx = new OpenTransaction(b, () => undefined);
    tx.ctx.insertWithCommit(LedgerEntry, [ledger(1, 'a')]);
    tx.ctx.later({ sql: 'UPDATE a', params: [] });
    await tx.ctx.sendHeld();
    expect(log).toEqual(['UPDATE a']);
    tx.ctx.insertWithCommit(LedgerEntry, [ledger(2, 'b'), ledger(3, 'c')]);
    tx.ctx.later({ sql: 'UPDATE b', params: [] });
    tx.ctx.counts.add([{ list: 'lots', scope: '1', by: 1 }]);
    await tx.commit();
    expect(log.map((s) => s.split(' (')[0])).toEqual(['UPDATE a', 'UPDATE b', 'INSERT INTO "ledger_entry"', 'INSERT INTO list_count', 'COMMIT', 'release']);
    expect((log[2].match(/\(\?/g) ?? []).length).toBe(3);
  });

  it('a rollback drops them', async () => {
    const { begun: b, log } = begun();
    (b.manager as unknown as { connection: DataSource }).connection = ds;
    const tx = new OpenTransaction(b, () => undefined);
    tx.ctx.insertWithCommit(LedgerEntry, [ledger(1, 'a')]);
    await tx.rollback();
    expect(log).toEqual(['ROLLBACK', 'release']);
    expect(() => tx.ctx.insertWithCommit(LedgerEntry, [ledger(2)])).toThrow('has ended');
  });
});
