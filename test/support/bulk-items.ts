import type { DataSource } from 'typeorm';
import { Item } from '../../src/catalog/catalog.entities.js';
import { addCounts } from '../../src/database/counters.js';

export type BulkItem = Partial<Omit<Item, 'partNo' | 'shortIdKey'>> & { shortID: string };

/**
 * Items written straight into a migrated database, many rows per INSERT, in
 * one transaction: a category of 100,000 items in seconds, where POST /Item
 * would take minutes. The values go through the entity's column transformers
 * (the case key, DECIMAL(18,4), UTC datetimes), as the service writes them,
 * and counted in the item list counters, as the service counts them.
 */
export async function insertItems(dataSource: DataSource, items: BulkItem[], rowsPerInsert = 500): Promise<void> {
  const now = new Date();
  await dataSource.transaction(async (m) => {
    for (let i = 0; i < items.length; i += rowsPerInsert) {
      const rows = items.slice(i, i + rowsPerInsert).map((item) => ({
        description: '',
        category: 0,
        subCategory: 0,
        uOM: 'EA',
        putUp: '',
        units: 1,
        dfltOwner: 0,
        discontinued: false,
        created: now,
        modified: now,
        createdBy: 'bulk',
        ...item,
        shortIdKey: item.shortID,
      }));
      await m.createQueryBuilder().insert().into(Item).values(rows).updateEntity(false).execute();
    }
    const active = items.filter((item) => !item.discontinued).length;
    await addCounts(m, [{ list: 'items', scope: 'all', by: items.length }, { list: 'items', scope: 'active', by: active }]);
  });
}

/** A shortID with its letters in random case, so that the case-insensitive order is not the stored one. */
export function mixedCase(value: string, random: () => number = Math.random): string {
  return [...value].map((c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
}
