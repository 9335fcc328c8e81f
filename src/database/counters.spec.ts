import { DataSource, type EntityManager } from 'typeorm';
import { addCounts, readCounts, sumCounts } from './counters.js';

describe('list counters', () => {
  it('speaks MySQL/MariaDB: one statement, net changes only, in primary-key order', async () => {
    const sql: Array<{ text: string; params: unknown[] }> = [];
    const m = { connection: { options: { type: 'mysql' } }, query: async (text: string, params: unknown[]) => sql.push({ text, params }) } as unknown as EntityManager;
    await addCounts(m, [
      { list: 'lots', scope: '2', by: 1 },
      { list: 'ledger', scope: '0>2', by: 1 },
      { list: 'lots', scope: '1', by: -1 },
      { list: 'lots', scope: '1', by: 1 },
    ]);
    expect(sql).toHaveLength(1);
    expect(sql[0].text).toBe('INSERT INTO list_count (list, scope, slot, n) VALUES (?, ?, ?, ?), (?, ?, ?, ?) ON DUPLICATE KEY UPDATE n = n + VALUES(n)');
    const rows = [sql[0].params.slice(0, 4), sql[0].params.slice(4)];
    expect(rows.map(([list, scope, , by]) => [list, scope, by])).toEqual([
      ['ledger', '0>2', 1],
      ['lots', '2', 1],
    ]);
    await addCounts(m, [{ list: 'lots', scope: '1', by: 0 }]);
    expect(sql).toHaveLength(1);
  });

  it('adds to slot rows on SQLite and reads each counter back as the sum of its slots', async () => {
    const db = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    try {
      // The table as migration ListCounters creates it on SQLite.
      await db.query('CREATE TABLE "list_count" ("list" varchar(16) NOT NULL, "scope" varchar(1000) NOT NULL, "slot" smallint NOT NULL, "n" bigint NOT NULL, PRIMARY KEY ("list", "scope", "slot"))');
      for (let i = 0; i < 40; i++) await addCounts(db.manager, [{ list: 'lots', scope: String(1 + (i % 2)), by: 1 }]);
      await addCounts(db.manager, [{ list: 'lots', scope: '1', by: -5 }]);
      const counts = await readCounts(db, 'lots');
      expect(Object.fromEntries(counts)).toEqual({ '1': 15, '2': 20 });
      expect(Object.fromEntries(await readCounts(db, 'lots', ['2', '9']))).toEqual({ '2': 20 });
      expect(sumCounts(counts)).toBe(35);
      const [{ slots }] = await db.query("SELECT COUNT(*) AS slots FROM list_count WHERE scope = '2'");
      // Spread over slots (16 of them: 20 additions nearly never land in one).
      expect(slots).toBeGreaterThan(1);
    } finally {
      await db.destroy();
    }
  });
});
