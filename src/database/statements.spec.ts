import { DataSource } from 'typeorm';
import { ENTITIES } from '../entities.js';
import { Lot } from '../inventory/inventory.entities.js';
import { columnReaders, hydratesAsRead, toEntity } from './statements.js';

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

/**
 * columnReaders: each reader gives what toEntity gives for its column (the
 * driver's prepareHydratedValue, or the value itself where hydratesAsRead),
 * on both drivers, and a column stored under another name is refused.
 */
describe('columnReaders', () => {
  const drivers: Array<[string, () => DataSource]> = [
    ['mysql', () => new DataSource({ type: 'mysql', database: 'unused', entities: ENTITIES })],
    ['better-sqlite3', () => new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: ENTITIES })],
  ];
  const LOT_FIELDS = ['recNo', 'units', 'received', 'shipped', 'hold', 'spot'] as const;

  it.each(drivers)('reads each lot column as toEntity does on %s', async (_name, make) => {
    const ds = make();
    await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
    const read = columnReaders(ds.manager, Lot, LOT_FIELDS);
    const rows: Array<Record<string, unknown>> = [
      { recNo: 7, units: '12.5000', received: new Date('2026-11-27T10:00:00.123Z'), shipped: null, hold: 1, spot: 'A-01' },
      { recNo: 8, units: 0.25, received: '2026-11-27 10:00:00.123', shipped: '2026-11-28 11:00:00.000', hold: 0, spot: '' },
    ];
    for (const row of rows) {
      const expected = toEntity(ds.manager, Lot, row, LOT_FIELDS);
      const got = Object.fromEntries(LOT_FIELDS.map((p) => [p, read[p](row[p])]));
      expect(got).toEqual(expected);
    }
    // Made once per entity, projection and data source.
    expect(columnReaders(ds.manager, Lot, LOT_FIELDS)).toBe(read);
  });

  it('refuses a property stored under another column name', async () => {
    const ds = drivers[0][1]();
    await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
    const renamed = ds.entityMetadatas.flatMap((e) => e.columns.filter((c) => c.databaseName !== c.propertyName).map((c) => [e.target, c.propertyName] as const));
    expect(renamed.length).toBeGreaterThan(0);
    const [entity, property] = renamed[0];
    expect(() => columnReaders(ds.manager, entity as never, [property] as never)).toThrow(/is stored as/);
  });
});
