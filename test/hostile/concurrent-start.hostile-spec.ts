import { spawn } from 'node:child_process';
import { DataSource } from 'typeorm';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../app.factory.js';
import { dataSourceOptions } from '../../src/database/data-source.js';
import { MYSQL_MIGRATIONS } from '../../src/database/migrations/mysql/index.js';
import { SQLITE_MIGRATIONS } from '../../src/database/migrations/sqlite/index.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

/**
 * Start-up on an empty database by several processes at once: three built
 * instances, or three `npm run migration:run`s. One applies the migrations,
 * the others wait for it and find nothing pending: every process succeeds,
 * the `migrations` table lists each migration once, and nobody logs an error.
 */
const PROCESSES = 3;
const MIGRATIONS = (testDatabaseKind() === 'mysql' ? MYSQL_MIGRATIONS : SQLITE_MIGRATIONS).map((m) => new m().name!);

/** The names in the `migrations` table, and the tables of the schema. */
async function schemaOf(db: TestDatabase): Promise<{ migrations: string[]; tables: string[] }> {
  const dataSource = await new DataSource(dataSourceOptions(db.target)).initialize();
  try {
    const migrations = ((await dataSource.query('SELECT name FROM migrations ORDER BY id')) as Array<{ name: string }>).map((r) => r.name);
    // The schema's own tables (TypeORM's getTables() with no names scans every schema on the server).
    const listed: Array<{ name: string }> = await dataSource.query(
      dataSource.options.type === 'mysql'
        ? 'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()'
        : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    const tables = listed.map((t) => t.name).sort();
    return { migrations, tables };
  } finally {
    await dataSource.destroy();
  }
}

describe(`several processes starting at once on an empty database (${testDatabaseKind()})`, () => {
  const databases: TestDatabase[] = [];
  let services: ServiceProcess[] = [];

  afterAll(async () => {
    await Promise.all(services.map((s) => s.kill('SIGTERM')));
    for (const db of databases) await db.drop();
  });

  const emptyDatabase = async () => {
    const db = await createTestDatabase();
    databases.push(db);
    return db;
  };

  it('three instances: all serve, one schema, each migration applied once, no error logged', async () => {
    const db = await emptyDatabase();
    const started = await Promise.allSettled(Array.from({ length: PROCESSES }, () => startService({ DATABASE_URL: db.url })));
    services = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
    for (const s of services) expect((await fetch(`${s.url}/health`)).status).toBe(200);
    const { migrations, tables } = await schemaOf(db);
    expect(migrations).toEqual(MIGRATIONS);
    expect(tables).toContain('access_token');
    expect(new Set(tables).size).toBe(tables.length);
    // Exactly one of them created the first admin client.
    expect(services.filter((s) => s.output().includes('"bootstrap"'))).toHaveLength(1);
    for (const s of services) {
      expect(s.output()).not.toMatch(/"level":(50|60)\b/);
      expect(s.output()).not.toMatch(/failed|Retrying/i);
    }
  });

  it('three `npm run migration:run`s: all succeed, one applies everything, the others nothing', async () => {
    const db = await emptyDatabase();
    const runs = await Promise.all(
      Array.from({ length: PROCESSES }, () => {
        const child = spawn(process.execPath, ['dist/src/database/migrate.js'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: db.url } });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        return new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
      }),
    );
    expect(runs.map((r) => ({ code: r.code, err: r.err }))).toEqual(Array(PROCESSES).fill({ code: 0, err: '' }));
    const applied = runs.map((r) => (JSON.parse(r.out) as { applied: string[] }).applied).sort((a, b) => b.length - a.length);
    expect(applied).toEqual([MIGRATIONS, ...Array(PROCESSES - 1).fill([])]);
    expect((await schemaOf(db)).migrations).toEqual(MIGRATIONS);
  });
});
