import 'reflect-metadata';
import { DataSource, type EntityTarget, type ObjectLiteral } from 'typeorm';
import { Item } from '../catalog/catalog.entities.js';
import { ACTIVE_ITEM_PAGE_INDEXES, ITEM_PAGES } from '../catalog/items.repository.js';
import { ENTITIES } from '../entities.js';
import type { PageSpec, SortIndexHints } from '../pagination/page.js';
import { ALLOCATION_PAGES } from './allocations.repository.js';
import { EXPECTATION_PAGES } from './expectations.repository.js';
import { Lot } from './inventory.entities.js';
import { LEDGER_PAGES, LOT_PAGE_INDEXES, LOT_PAGES } from './inventory-pages.repository.js';
import { STOCK_PAGES } from './stock-level-pages.repository.js';

/**
 * A page sorted by a column of PageSpec.plainOrder is put in order in
 * JavaScript on MySQL (pagination/page.ts, `orderPlain`), which compares
 * numbers, bigints and Dates only: every such column, and the tiebreak after
 * it, must be an integer or datetime column that holds no NULL and no
 * transformer, on both drivers' metadata. A list that adds plainOrder is added here.
 */
describe('PageSpec.plainOrder', () => {
  const withPlainOrder: Array<[string, PageSpec, EntityTarget<ObjectLiteral>]> = [
    ['items', ITEM_PAGES, Item],
    ['lots', LOT_PAGES, Lot],
  ];
  const drivers: Array<[string, () => DataSource]> = [
    ['mysql', () => new DataSource({ type: 'mysql', database: 'unused', entities: ENTITIES })],
    ['better-sqlite3', () => new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: ENTITIES })],
  ];

  it.each(drivers)('lists only non-null integer and datetime columns without a transformer (%s)', async (_name, make) => {
    const ds = make();
    // The entities' metadata without connecting (the MySQL driver needs no server for it).
    await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
    for (const [list, spec, entity] of withPlainOrder) {
      const metadata = ds.getMetadata(entity);
      const plain = spec.plainOrder ?? [];
      expect(plain.length).toBeGreaterThan(0);
      for (const column of [...plain, spec.tiebreak]) {
        const [, property] = column.split('.');
        const found = metadata.findColumnWithPropertyName(property);
        expect({ list, column, exists: !!found }).toEqual({ list, column, exists: true });
        expect({ list, column, type: String(found!.type), nullable: found!.isNullable, transformer: !!found!.transformer }).toEqual({
          list,
          column,
          type: expect.stringMatching(/^(int|integer|bigint|datetime)$/),
          nullable: false,
          transformer: false,
        });
        // Listed columns are sortable columns of the list.
        if (column !== spec.tiebreak) expect(Object.values(spec.sortable)).toContain(column);
      }
    }
  });

  it('is set on no other list (one that adds it is checked above first)', () => {
    for (const spec of [LEDGER_PAGES, STOCK_PAGES, ALLOCATION_PAGES, EXPECTATION_PAGES]) expect(spec.plainOrder).toBeUndefined();
  });
});

/**
 * The lists that name their sort's indexes to MySQL (SortIndexHints, which
 * paginate names in USE INDEX on a page's keys): every sortable column has
 * its entry, or its pages would be read without a hint and MariaDB's index
 * dives would come back on them. A list that hands paginate hints is added
 * to HINTED. That the names exist, are named only where they should be,
 * and give every sort a plan without a scan or a sort is the query-plan
 * e2e spec's.
 */
const HINTED: Array<{ list: string; spec: PageSpec; hints: SortIndexHints; names: (column: string) => unknown }> = [
  // GET /Item (active): the sort's index, `discontinued` first.
  { list: 'active items', spec: ITEM_PAGES, hints: ACTIVE_ITEM_PAGE_INDEXES, names: (name) => `IX_item_active_${name}` },
  // The lot page: the sort's own index (every warehouse together), then the warehouse's first.
  {
    list: 'lots',
    spec: LOT_PAGES,
    hints: LOT_PAGE_INDEXES,
    names: (name) => [name === 'recNo' ? 'PRIMARY' : `IX_lot_${name}_recNo_wID`, expect.stringMatching(new RegExp(`^IX_lot_wID_${name}(_recNo)?$`))],
  },
];

describe('SortIndexHints of the hinted lists', () => {
  it.each(HINTED)('$list: an entry for every sortable column and no other, each the sort\'s indexes', ({ list, spec, hints, names }) => {
    expect(Object.keys(hints).sort()).toEqual([...new Set(Object.values(spec.sortable))].sort());
    for (const [column, named] of Object.entries(hints)) {
      const name = column.slice(column.indexOf('.') + 1);
      expect({ list, column, named }).toEqual({ list, column, named: names(name) });
    }
  });
});
