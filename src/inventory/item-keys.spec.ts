import { DataSource, type Repository } from 'typeorm';
import type { Item } from '../catalog/catalog.entities.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import type { TransactionRunner } from '../database/transactions.js';
import { ItemKeyCache, MAX_KEPT } from './item-keys.js';

describe('ItemKeyCache', () => {
  let db: DataSource;
  let reads: number;
  let cache: ItemKeyCache;

  beforeAll(async () => {
    db = await new DataSource({ type: 'better-sqlite3', database: ':memory:' }).initialize();
    await db.query('CREATE TABLE item (partNo INTEGER PRIMARY KEY, shortID TEXT NOT NULL, shortIdKey TEXT NOT NULL UNIQUE)');
    await db.query("INSERT INTO item (partNo, shortID, shortIdKey) VALUES (7, 'Bolt,M8-Ä', 'bolt,m8-ä'), (12, 'ＡＢＣ-1', 'abc-1')");
  });
  afterAll(() => db.destroy());

  beforeEach(() => {
    reads = 0;
    const reader = { query: (sql: string, params: unknown[]) => (reads++, db.manager.query(sql, params)), connection: db.manager.connection };
    cache = new ItemKeyCache(new ItemLocksRepository({ reader } as unknown as TransactionRunner, {} as Repository<Item>));
  });

  it('reads an item once, then answers from what it kept, by any spelling of its key', async () => {
    expect(await cache.of('Bolt,M8-Ä')).toEqual({ partNo: 7, shortID: 'Bolt,M8-Ä' });
    expect(await cache.of('BOLT,m8-ä')).toEqual({ partNo: 7, shortID: 'Bolt,M8-Ä' });
    expect(await cache.of('abc-1')).toEqual({ partNo: 12, shortID: 'ＡＢＣ-1' });
    expect(await cache.of('ＡＢＣ-1')).toEqual({ partNo: 12, shortID: 'ＡＢＣ-1' });
    expect(reads).toBe(2);
    expect(cache.size).toBe(2);
  });

  it('keeps no unknown item: one created later is found', async () => {
    expect(await cache.of('nut-9')).toBeNull();
    expect(cache.size).toBe(0);
    await db.query("INSERT INTO item (partNo, shortID, shortIdKey) VALUES (30, 'Nut-9', 'nut-9')");
    expect(await cache.of('NUT-9')).toEqual({ partNo: 30, shortID: 'Nut-9' });
    expect(reads).toBe(2);
  });

  it('keeps at most MAX_KEPT items, dropping the one read first', async () => {
    const values = Array.from({ length: MAX_KEPT }, (_, i) => `(${1000 + i}, 'K-${i}', 'k-${i}')`);
    for (let i = 0; i < values.length; i += 5000) await db.query(`INSERT INTO item (partNo, shortID, shortIdKey) VALUES ${values.slice(i, i + 5000).join(', ')}`);
    await cache.of('bolt,m8-ä');
    for (let i = 0; i < MAX_KEPT; i++) await cache.of(`K-${i}`);
    expect(cache.size).toBe(MAX_KEPT);
    expect(reads).toBe(MAX_KEPT + 1);
    expect(await cache.of(`k-${MAX_KEPT - 1}`)).toEqual({ partNo: 1000 + MAX_KEPT - 1, shortID: `K-${MAX_KEPT - 1}` });
    expect(reads).toBe(MAX_KEPT + 1);
    expect(await cache.of('bolt,m8-ä')).toEqual({ partNo: 7, shortID: 'Bolt,M8-Ä' });
    expect(reads).toBe(MAX_KEPT + 2);
    expect(cache.size).toBe(MAX_KEPT);
  });
});
