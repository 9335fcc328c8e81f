import { tracingChannel } from 'node:diagnostics_channel';
import request from 'supertest';
import { caseKey, MYSQL_KEY_COLLATION } from '../src/database/case-key.js';
import { decimalTransformer, sumDecimals } from '../src/quantity.js';
import { MYSQL_MIGRATIONS } from '../src/database/migrations/mysql/index.js';
import { SQLITE_MIGRATIONS } from '../src/database/migrations/sqlite/index.js';
import { SESSION_SQL_MODE } from '../src/database/session.js';
import { TransactionRunner } from '../src/database/transactions.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';

describe(`database layer on ${testDatabaseKind()}`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('applies every migration of the dialect at start-up and records it', async () => {
    const expected = (testDatabaseKind() === 'mysql' ? MYSQL_MIGRATIONS : SQLITE_MIGRATIONS).map((m) => new m().name);
    expect(expected.length).toBeGreaterThan(0);
    const rows: Array<{ name: string }> = await t.dataSource.query('SELECT name FROM migrations ORDER BY id');
    expect(rows.map((r) => r.name)).toEqual(expected);
    expect(await t.dataSource.showMigrations()).toBe(false);
  });

  it('runs inventory transactions at READ COMMITTED on MySQL, every time, and commits or rolls back', async () => {
    const tx = t.app.get(TransactionRunner);
    await t.dataSource.query('CREATE TABLE probe_tx (id INTEGER PRIMARY KEY)');
    if (testDatabaseKind() === 'mysql') {
      for (let i = 0; i < 12; i++) {
        // MariaDB names it tx_isolation; MySQL 8 only transaction_isolation.
        const [row] = await tx.run((ctx) => ctx.manager.query('SELECT @@tx_isolation AS level').catch(() => ctx.manager.query('SELECT @@transaction_isolation AS level')));
        expect(row.level).toBe('READ-COMMITTED');
      }
    }
    await tx.run((ctx) => ctx.manager.query('INSERT INTO probe_tx (id) VALUES (1)'));
    await expect(
      tx.run(async (ctx) => {
        await ctx.manager.query('INSERT INTO probe_tx (id) VALUES (2)');
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');
    expect(await t.dataSource.query('SELECT id FROM probe_tx ORDER BY id')).toEqual([{ id: 1 }]);
  });

  (testDatabaseKind() === 'mysql' ? it : it.skip)('sends one statement per query, transactions through the query runner (MySQL/MariaDB only)', async () => {
    const tx = t.app.get(TransactionRunner);
    await t.dataSource.query('CREATE TABLE probe_start (id INTEGER PRIMARY KEY AUTO_INCREMENT, v INTEGER NOT NULL)');
    // What the driver is asked to send, from its own tracing channel.
    const sent: string[] = [];
    const channel = tracingChannel<object, { query: string }>('mysql2:query');
    const listen = { start: (context: { query: string }) => void sent.push(context.query) };
    channel.subscribe(listen as never);
    try {
      expect(await tx.run((ctx) => ctx.manager.query('SELECT @@in_transaction = 1 AS t, 5 AS five'))).toEqual([{ t: 1, five: 5 }]);
      // No connection takes two statements in one query (mysql2's default, never changed).
      await expect(tx.run((ctx) => ctx.manager.query('SELECT 1 AS a; SELECT 2 AS b'))).rejects.toMatchObject({ driverError: { code: 'ER_PARSE_ERROR' } });
      await expect(t.dataSource.query('SELECT 1 AS a; SELECT 2 AS b')).rejects.toMatchObject({ driverError: { code: 'ER_PARSE_ERROR' } });
      const inserted = await tx.run((ctx) => ctx.manager.query('INSERT INTO probe_start (v) VALUES (7)'));
      expect(inserted).toMatchObject({ affectedRows: 1, insertId: 1 });
      expect(await tx.run((ctx) => ctx.manager.createQueryBuilder().select('p.v', 'v').from('probe_start', 'p').getRawOne())).toEqual({ v: 7 });
      expect(await tx.run((ctx) => ctx.manager.insert('probe_start', { v: 8 }))).toMatchObject({ raw: { affectedRows: 1, insertId: 2 } });
      // A failing statement fails the transaction and leaves nothing open.
      await expect(tx.run((ctx) => ctx.manager.query('SELECT * FROM probe_no_such_table'))).rejects.toMatchObject({ driverError: { code: 'ER_NO_SUCH_TABLE' } });
    } finally {
      channel.unsubscribe(listen as never);
    }
    // Nothing but the probes above ever puts two statements in one query.
    expect(sent.filter((q) => /;\s*\S/.test(q))).toEqual(['SELECT 1 AS a; SELECT 2 AS b', 'SELECT 1 AS a; SELECT 2 AS b']);
    expect(sent.filter((q) => /^START TRANSACTION$/.test(q)).length).toBe(6);
    expect(sent.filter((q) => /^(COMMIT|ROLLBACK)$/.test(q)).length).toBe(6);
    // No pooled connection keeps a transaction open for its next user: ten at once, each outside a transaction.
    const pooled = await Promise.all(Array.from({ length: 10 }, () => t.dataSource.query('SELECT @@in_transaction = 0 AS t, SLEEP(0.05) AS s')));
    expect(pooled).toEqual(Array.from({ length: 10 }, () => [{ t: 1, s: 0 }]));
    expect(await t.dataSource.query('SELECT id, v FROM probe_start ORDER BY id')).toEqual([{ id: 1, v: 7 }, { id: 2, v: 8 }]);
  });

  (testDatabaseKind() === 'mysql' ? it : it.skip)('sets its own session on every pooled connection, whatever the server\'s globals (MySQL/MariaDB only)', async () => {
    // Ten at once: as many pooled connections, each opened with the settings of src/database/session.ts.
    const sessions = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.dataSource.query(
          'SELECT @@SESSION.sql_mode AS mode, @@SESSION.time_zone AS tz, @@character_set_client AS client, @@character_set_connection AS conn, @@character_set_results AS results, @@collation_connection AS collation, SLEEP(0.05) AS s',
        ),
      ),
    );
    for (const [row] of sessions) {
      expect(row).toEqual({ mode: SESSION_SQL_MODE, tz: '+00:00', client: 'utf8mb4', conn: 'utf8mb4', results: 'utf8mb4', collation: 'utf8mb4_unicode_ci', s: 0 });
    }
  });

  it('takes the retry budget TX_RETRY_BUDGET_MS gives, and without it the default for this database', async () => {
    // The test app sets 2000 explicitly; one without the setting takes the default (15 s on a Galera node, where the
    // contract suite also runs this), and a set value always wins.
    const galera = testDatabaseKind() === 'mysql' && (await t.dataSource.query("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'"))[0]?.Value === 'ON';
    expect(t.app.get(TransactionRunner).retryBudget).toEqual({ ms: 2000, source: 'TX_RETRY_BUDGET_MS' });
    const unset = await startTestApp({ config: { txRetryBudgetMs: null } });
    const set = await startTestApp({ config: { txRetryBudgetMs: 7000 } });
    try {
      expect(unset.app.get(TransactionRunner).retryBudget).toEqual(galera ? { ms: 15_000, source: 'Galera default' } : { ms: 2000, source: 'default' });
      expect(set.app.get(TransactionRunner).retryBudget).toEqual({ ms: 7000, source: 'TX_RETRY_BUDGET_MS' });
    } finally {
      await unset.close();
      await set.close();
    }
  });

  it('round-trips DECIMAL(18,4) values exactly through the real driver', async () => {
    await t.dataSource.query('CREATE TABLE probe_decimal (id INTEGER PRIMARY KEY, v DECIMAL(18,4) NOT NULL)');
    const values = [0.1, 0.0001, 1, -3.5, 12_345_678.9012, 99_999_999_999.9999];
    for (const [i, v] of values.entries()) {
      await t.dataSource.query('INSERT INTO probe_decimal (id, v) VALUES (?, ?)', [i + 1, decimalTransformer.to(v)]);
    }
    const rows: Array<{ v: string | number }> = await t.dataSource.query('SELECT v FROM probe_decimal ORDER BY id');
    expect(rows.map((r) => decimalTransformer.from(r.v))).toEqual(values);
    if (testDatabaseKind() === 'mysql') expect(typeof rows[0].v).toBe('string');
  });

  it('sums ten stored 0.1 values to exactly 1', async () => {
    await t.dataSource.query('CREATE TABLE probe_sum (id INTEGER PRIMARY KEY, v DECIMAL(18,4) NOT NULL)');
    for (let i = 1; i <= 10; i++) await t.dataSource.query('INSERT INTO probe_sum (id, v) VALUES (?, ?)', [i, decimalTransformer.to(0.1)]);
    const rows: Array<{ v: string | number }> = await t.dataSource.query('SELECT v FROM probe_sum');
    expect(sumDecimals(rows.map((r) => decimalTransformer.from(r.v) as number))).toBe(1);
  });

  it('enforces case-insensitive uniqueness through a key column on this database', async () => {
    const collation = testDatabaseKind() === 'mysql' ? MYSQL_KEY_COLLATION : '';
    await t.dataSource.query(
      `CREATE TABLE probe_key (id INTEGER PRIMARY KEY, name VARCHAR(64) NOT NULL, name_key VARCHAR(64) ${collation} NOT NULL)`,
    );
    await t.dataSource.query('CREATE UNIQUE INDEX probe_key_name ON probe_key (name_key)');
    const insert = (id: number, name: string) =>
      t.dataSource.query('INSERT INTO probe_key (id, name, name_key) VALUES (?, ?, ?)', [id, name, caseKey(name)]);
    await insert(1, 'ABC-1');
    await expect(insert(2, 'abc-1')).rejects.toThrow();
    // Case folds; accents do not: ÄBC-1 is another item than ABC-1, on every database.
    await insert(3, 'ÄBC-1');
    await expect(insert(4, 'äbc-1')).rejects.toThrow();
    // Full-width look-alikes are the same key (NFKC).
    await expect(insert(6, 'ＡＢＣ-1')).rejects.toThrow();
    await insert(5, 'abc-2');
    const rows: Array<{ name: string }> = await t.dataSource.query('SELECT name FROM probe_key ORDER BY id');
    expect(rows.map((r) => r.name)).toEqual(['ABC-1', 'ÄBC-1', 'abc-2']);
  });

  it('enforces the foreign keys of lots and stock levels on this database', async () => {
    const now = new Date();
    await expect(
      t.dataSource.createQueryBuilder().insert().into('lot').values({ partNo: 999_999, wID: 1, units: '1.0000', received: now, modified: now }).execute(),
    ).rejects.toThrow();
    await expect(
      t.dataSource.createQueryBuilder().insert().into('stock_level').values({ partNo: 999_999, wID: 1, inStock: '0', onHold: '0', modified: now }).execute(),
    ).rejects.toThrow();
  });

  it('stores and reads datetimes as UTC', async () => {
    await t.dataSource.query(
      `CREATE TABLE probe_time (id INTEGER PRIMARY KEY, at ${testDatabaseKind() === 'mysql' ? 'DATETIME(3)' : 'DATETIME'} NOT NULL)`,
    );
    const at = new Date('2026-11-22T09:30:00.123Z');
    await t.dataSource.createQueryBuilder().insert().into('probe_time').values({ id: 1, at }).execute();
    const [row] = await t.dataSource
      .createQueryBuilder()
      .select('COUNT(*)', 'n')
      .from('probe_time', 'p')
      .where('p.at >= :since', { since: new Date('2026-11-22T09:30:00.123Z') })
      .getRawMany();
    expect(Number(row.n)).toBe(1);
  });
});

describe(`GET /health when the database is gone (${testDatabaseKind()})`, () => {
  it('answers 503 in the error shape', async () => {
    const t = await startTestApp();
    try {
      await t.dataSource.destroy();
      const res = await request(t.http).get('/health');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ statusCode: 503, error: 'service_unavailable', message: 'The database is not answering.', details: null });
    } finally {
      await t.app.close().catch(() => undefined);
      await t.database.drop();
    }
  });
});
