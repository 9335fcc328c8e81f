import { DataSource } from 'typeorm';
import { ENTITIES } from '../entities.js';
import { hydratesAsRead } from './statements.js';

/**
 * The hydrator copies a column's value instead of calling the driver's
 * prepareHydratedValue when `hydratesAsRead` says so: that must be exactly
 * what the driver would have returned, on both drivers, for every column of
 * every entity it applies to, whatever value a row can hold there.
 */
describe('hydratesAsRead', () => {
  const drivers: Array<[string, () => DataSource]> = [
    ['mysql', () => new DataSource({ type: 'mysql', database: 'unused', entities: ENTITIES })],
    ['better-sqlite3', () => new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: ENTITIES })],
  ];

  it.each(drivers)('copies only values that %s hands over unchanged', async (_name, make) => {
    const ds = make();
    // The entities' metadata without connecting (the MySQL driver needs no server for it).
    await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
    const copied = ds.entityMetadatas.flatMap((e) => e.columns.filter(hydratesAsRead));
    expect(copied.length).toBeGreaterThan(20);
    for (const column of copied) {
      for (const value of [null, 0, 7, -2147483648, 9007199254740991, '', 'S-1', '12345678901234567890', ' padded ']) {
        expect({ column: `${column.entityMetadata.name}.${column.propertyName}`, value: ds.driver.prepareHydratedValue(value, column) }).toEqual({
          column: `${column.entityMetadata.name}.${column.propertyName}`,
          value,
        });
      }
    }
    // And it never copies a column the driver converts or a transformer reads.
    for (const e of ds.entityMetadatas) {
      for (const c of e.columns) {
        if (c.transformer || ['decimal', 'datetime', 'boolean', 'json', 'simple-json', 'simple-array', 'date', 'time'].includes(String(c.type))) {
          expect(hydratesAsRead(c)).toBe(false);
        }
      }
    }
  });
});
