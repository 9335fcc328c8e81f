import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { follow, getPage } from './support/pages.js';

type Row = Record<string, unknown>;

/**
 * Item pages sorted by an integer or a date column, which on MySQL are put
 * in order in JavaScript (PageSpec.plainOrder), with ties that the key must
 * break, dates a millisecond apart among them: for every such sort, both
 * directions, the pages read by `page=N`, walked by `next` and walked back by
 * `prev` give the items in the order of the database's own
 * `ORDER BY <column> <direction>, partNo <direction>`.
 */
describe(`item pages in the order of an integer or date column (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let all: TestClient;
  const PAGE = 4;
  const ITEMS = 14;

  beforeAll(async () => {
    t = await startTestApp();
    all = await givenClient(t, { warehouses: [1, 2, 3] });
    for (let i = 0; i < ITEMS; i++) await givenItem(t, all.bearer, { shortID: `PO-${String(i).padStart(2, '0')}`, category: i % 3, subCategory: (i * 7) % 4 });
    // Three groups by partNo: two share their dates to the millisecond, the third is a millisecond later (created) or the same (modified).
    const set = (group: number, created: string, modified: string) => t.dataSource.query('UPDATE item SET created = ?, modified = ? WHERE partNo % 3 = ?', [created, modified, group]);
    await set(0, '2026-03-01 10:00:00.000', '2026-03-02 10:00:00.000');
    await set(1, '2026-03-01 10:00:00.001', '2026-03-02 10:00:00.000');
    await set(2, '2026-03-01 10:00:00.000', '2026-03-02 09:59:59.999');
  });
  afterAll(() => t.close());

  const partNos = (rows: Row[]) => rows.map((r) => Number(r.partNo));

  describe.each(['partNo', 'category', 'subCategory', 'created', 'modified'])('sort=%s', (sort) => {
    it.each(['ASC', 'DESC'])('%s: by page=N, by next and back by prev, as the database orders them', async (direction) => {
      const expected = partNos(await t.dataSource.query(`SELECT partNo FROM item ORDER BY ${sort} ${direction}, partNo ${direction}`));
      expect(expected).toHaveLength(ITEMS);
      const url = `/api/v1/Item/All?sort=${sort}&direction=${direction}&pageSize=${PAGE}`;

      const byNumber: Row[] = [];
      for (let page = 1; page <= Math.ceil(ITEMS / PAGE); page++) byNumber.push(...(await getPage(t, all.bearer, `${url}&page=${page}`)).rows);
      expect(partNos(byNumber)).toEqual(expected);

      const forward = await follow(t, all.bearer, url, 'next');
      expect(partNos(forward.flatMap((p) => p.rows))).toEqual(expected);

      const back = await follow(t, all.bearer, forward[forward.length - 1].url, 'prev');
      expect(partNos(back.reverse().flatMap((p) => p.rows))).toEqual(expected);
    });
  });
});
