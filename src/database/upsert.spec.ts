import { DataSource, type EntityManager } from 'typeorm';
import { upsertIncrement } from './upsert.js';

/** A manager that only records the statements it is given, for a DataSource of this type. */
function recording(type: string): { m: EntityManager; sql: string[] } {
  const sql: string[] = [];
  const m = { connection: { options: { type } }, query: async (text: string) => sql.push(text) } as unknown as EntityManager;
  return { m, sql };
}

describe('upsertIncrement', () => {
  it('speaks MySQL/MariaDB when the DataSource is mysql', async () => {
    const { m, sql } = recording('mysql');
    await upsertIncrement(m, 'stock_count', 'scope', 3, 'items');
    expect(sql).toEqual(['INSERT INTO `stock_count` (`scope`, `items`) VALUES (?, 1) ON DUPLICATE KEY UPDATE `items` = `items` + 1']);
  });

  it('creates the row at 1, then adds 1, on SQLite', async () => {
    const db = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    try {
      await db.query('CREATE TABLE "stock_count" ("scope" int NOT NULL PRIMARY KEY, "items" int NOT NULL)');
      await upsertIncrement(db.manager, 'stock_count', 'scope', 0, 'items');
      await upsertIncrement(db.manager, 'stock_count', 'scope', 2, 'items');
      await upsertIncrement(db.manager, 'stock_count', 'scope', 2, 'items');
      expect(await db.query('SELECT scope, items FROM stock_count ORDER BY scope')).toEqual([
        { scope: 0, items: 1 },
        { scope: 2, items: 2 },
      ]);
    } finally {
      await db.destroy();
    }
  });
});
