import { DataSource, type EntityManager } from 'typeorm';
import { upsertAdd } from './upsert.js';

/** A manager that only records the statements it is given, for a DataSource of this type. */
function recording(type: string): { m: EntityManager; sql: string[] } {
  const sql: string[] = [];
  const m = { connection: { options: { type } }, query: async (text: string) => sql.push(text) } as unknown as EntityManager;
  return { m, sql };
}

describe('upsertAdd', () => {
  it('speaks MySQL/MariaDB when the DataSource is mysql', async () => {
    const { m, sql } = recording('mysql');
    await upsertAdd(m, 'stock_count', 'scope', 'items', [
      { value: 0, by: 1 },
      { value: 3, by: 2 },
    ]);
    expect(sql).toEqual(['INSERT INTO `stock_count` (`scope`, `items`) VALUES (?, ?), (?, ?) ON DUPLICATE KEY UPDATE `items` = `items` + VALUES(`items`)']);
  });

  it('creates a missing row at its amount, then adds to it, on SQLite', async () => {
    const db = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    try {
      await db.query('CREATE TABLE "stock_count" ("scope" int NOT NULL PRIMARY KEY, "items" int NOT NULL)');
      await upsertAdd(db.manager, 'stock_count', 'scope', 'items', [{ value: 0, by: 1 }]);
      await upsertAdd(db.manager, 'stock_count', 'scope', 'items', [
        { value: 0, by: 1 },
        { value: 2, by: 3 },
      ]);
      await upsertAdd(db.manager, 'stock_count', 'scope', 'items', [{ value: 2, by: -1 }]);
      expect(await db.query('SELECT scope, items FROM stock_count ORDER BY scope')).toEqual([
        { scope: 0, items: 2 },
        { scope: 2, items: 2 },
      ]);
    } finally {
      await db.destroy();
    }
  });
});
