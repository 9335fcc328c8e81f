import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, type MigrationInterface, Table } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source.js';
import { MYSQL_MIGRATIONS } from '../src/database/migrations/mysql/index.js';
import { SQLITE_MIGRATIONS } from '../src/database/migrations/sqlite/index.js';
import { ENTITIES } from '../src/entities.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from './app.factory.js';
import { TOLERATED_DIFFERENCES } from './support/schema-drift.js';
import { schemaOf } from './support/schema.js';
import { rowsAfter } from './support/migration-rows.js';

/**
 * Migrations are history (docs/architecture.md, "Migrations"): the schema
 * they build is what the entities declare, and a database migrated one step
 * at a time, with rows in it at every step, ends where a new one migrated in
 * one go does.
 */
const kind = testDatabaseKind();
const MIGRATIONS: Array<new () => MigrationInterface> = kind === 'mysql' ? MYSQL_MIGRATIONS : SQLITE_MIGRATIONS;

describe(`migrations on ${kind}`, () => {
  const databases: TestDatabase[] = [];
  const open = async (migrations = MIGRATIONS) => {
    const db = await createTestDatabase();
    databases.push(db);
    return { db, ds: await new DataSource({ ...dataSourceOptions(db.target, ENTITIES), migrations }).initialize() };
  };
  afterAll(async () => {
    for (const db of databases) await db.drop();
  });

  it('build the schema the entities declare: TypeORM finds nothing to change but the differences listed and explained', async () => {
    const { ds } = await open();
    try {
      await ds.runMigrations({ transaction: 'each' });
      // TypeORM reads a generated column's expression (stock_level.available) from its own table, which the
      // service never needs; the diff cannot run without it. Created here, in this test's database only.
      const runner = ds.createQueryRunner();
      const text = (name: string, nullable = true) => ({ name, type: 'varchar', length: '255', isNullable: nullable });
      await runner.createTable(new Table({ name: 'typeorm_metadata', columns: [text('type', false), text('database'), text('schema'), text('table'), text('name'), { name: 'value', type: 'text', isNullable: true }] }));
      await runner.release();
      const pending = (await ds.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query.trim());
      // Exactly the listed differences: one more is drift, and one missing (a dropped index, say) is drift too.
      expect({ unexplained: pending.filter((q) => !TOLERATED_DIFFERENCES[kind].has(q)), missing: [...TOLERATED_DIFFERENCES[kind]].filter((q) => !pending.includes(q)) }).toEqual({ unexplained: [], missing: [] });
    } finally {
      await ds.destroy();
    }
  });

  it('end in the same schema one step at a time, with rows at every step, as in one go', async () => {
    const fresh = await open();
    let expected: string[];
    let mariadb = true;
    try {
      await fresh.ds.runMigrations({ transaction: 'each' });
      expected = await schemaOf(fresh.ds);
      if (kind === 'mysql') mariadb = /MariaDB/i.test(String((await fresh.ds.query('SELECT VERSION() AS v'))[0]?.v));
    } finally {
      await fresh.ds.destroy();
    }
    // The schema of record: it changes only with a new migration, and then is written anew with
    // SCHEMA_SNAPSHOT=write (docs/architecture.md, "Migrations"). An edited migration fails here.
    // MariaDB's information_schema, as CI and docs/operations.md run it (MySQL 8 words some types otherwise).
    const snapshot = join(import.meta.dirname, 'schema', `${kind === 'mysql' ? 'mariadb' : kind}.schema.txt`);
    if (process.env.SCHEMA_SNAPSHOT === 'write') {
      // Written by hand with a new migration, never in CI, and never passing: the new file is to be read first.
      if (process.env.CI) throw new Error('SCHEMA_SNAPSHOT=write is refused in CI');
      writeFileSync(snapshot, `${expected.join('\n')}\n`);
      throw new Error(`${snapshot} written: review git diff test/schema, then run again without SCHEMA_SNAPSHOT`);
    }
    // The record is MariaDB 10.11's wording; MySQL 8 words some types otherwise and is compared by the step-by-step run only.
    if (mariadb) expect(expected).toEqual(readFileSync(snapshot, 'utf8').trimEnd().split('\n'));

    const db = await createTestDatabase();
    databases.push(db);
    for (let step = 1; step <= MIGRATIONS.length; step++) {
      const ds = await new DataSource({ ...dataSourceOptions(db.target), migrations: MIGRATIONS.slice(0, step) }).initialize();
      try {
        const ran = await ds.runMigrations({ transaction: 'each' });
        expect(ran.map((m) => m.name)).toEqual([new MIGRATIONS[step - 1]().name]);
        for (const [sql, parameters] of rowsAfter(MIGRATIONS.slice(0, step).map((m) => new m().name ?? m.name), step)) await ds.query(sql, parameters);
        if (step === MIGRATIONS.length) {
          // The data-rewriting migrations ran on real rows: the look-alike's key refolded, the counters filled.
          expect(await ds.query("SELECT shortIdKey AS k FROM item WHERE shortID = 'ＡＢＣ-2'")).toEqual([{ k: 'abc-2' }]);
          expect((await ds.query("SELECT n FROM list_count WHERE list = 'items' AND scope = 'all'")).length).toBeGreaterThan(0);
          // The documents of the step that made their tables (one of each in its own warehouse), counted by DocumentCounters.
          const made = MIGRATIONS.findIndex((m) => new m().name === 'StockDocuments1763810000000') + 1;
          const documents = await ds.query("SELECT list, scope, SUM(n) AS n FROM list_count WHERE list IN ('allocations', 'expectations') GROUP BY list, scope ORDER BY list, scope");
          expect(documents.map((r: Record<string, unknown>) => [r.list, r.scope, Number(r.n)])).toEqual([
            ['allocations', String(made), 1],
            ['expectations', String(made), 1],
          ]);
          expect(await schemaOf(ds)).toEqual(expected);
        }
      } finally {
        await ds.destroy();
      }
    }
  });
});
