import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Column, DataSource, Entity, type Logger, PrimaryColumn, SelectQueryBuilder } from 'typeorm';
import { ValidationFailed } from '../errors.js';
import { ApiValidationPipe } from '../http/validation.pipe.js';
import { linkHeader } from './page-headers.interceptor.js';
import { PageQueryDto } from './page-query.dto.js';
import type { EntityManager, ObjectLiteral } from 'typeorm';
import { joinedRead, MAX_PAGE_SIZE, orderPlain, Page, paginate, resolvePage, type PageSpec } from './page.js';

const SPEC: PageSpec = {
  maxPageSize: MAX_PAGE_SIZE.standard,
  sortable: { shortID: 'row.shortID', created: 'row.created' },
  defaultSort: { column: 'row.shortID', direction: 'ASC' },
  tiebreak: 'row.id',
  modifiedColumn: 'row.modified',
};

const pipe = new ApiValidationPipe();
const parseQuery = (query: Record<string, unknown>) =>
  pipe.transform(query, { type: 'query', metatype: PageQueryDto }) as Promise<PageQueryDto>;

describe('resolvePage', () => {
  it('defaults to page 1 of 25 in the default order with the primary-key tiebreak', () => {
    expect(resolvePage({}, SPEC)).toEqual({
      page: 1,
      pageSize: 25,
      offset: 0,
      order: [['row.shortID', 'ASC'], ['row.id', 'ASC']],
      modifiedSince: null,
    });
  });

  it('caps pageSize at the endpoint maximum and reports the capped size', () => {
    expect(resolvePage({ pageSize: 251 }, SPEC).pageSize).toBe(250);
    expect(resolvePage({ pageSize: 60 }, { ...SPEC, maxPageSize: MAX_PAGE_SIZE.orders }).pageSize).toBe(50);
    expect(resolvePage({ pageSize: 5000 }, { ...SPEC, maxPageSize: MAX_PAGE_SIZE.reports }).pageSize).toBe(1000);
    const page = new Page([], 600, resolvePage({ page: 2, pageSize: 9999 }, SPEC));
    expect(page.pageSize).toBe(250);
    expect(page.pageCount).toBe(3);
  });

  it('computes the offset from page and capped size', () => {
    expect(resolvePage({ page: 4, pageSize: 1000 }, SPEC).offset).toBe(750);
  });

  it('looks up sort case-insensitively and breaks ties by the primary key in the same direction', () => {
    expect(resolvePage({ sort: 'CREATED', direction: 'desc' }, SPEC).order).toEqual([
      ['row.created', 'DESC'],
      ['row.id', 'DESC'],
    ]);
  });

  it('ignores an unknown sort and keeps the default order', () => {
    expect(resolvePage({ sort: 'password' }, SPEC).order).toEqual([['row.shortID', 'ASC'], ['row.id', 'ASC']]);
  });

  it('ignores a sort value carrying SQL; nothing from it reaches the order', () => {
    for (const sort of ['shortID; DROP TABLE item', 'shortID DESC', '(SELECT 1)', 'row.shortID', '1']) {
      const { order } = resolvePage({ sort }, SPEC);
      expect(order).toEqual([['row.shortID', 'ASC'], ['row.id', 'ASC']]);
    }
  });

  it('ignores a direction other than ASC or DESC; the default order keeps its own direction', () => {
    const newestFirst: PageSpec = { ...SPEC, defaultSort: { column: 'row.created', direction: 'DESC' } };
    expect(resolvePage({ direction: 'sideways' }, newestFirst).order[0]).toEqual(['row.created', 'DESC']);
    expect(resolvePage({ direction: 'asc' }, newestFirst).order[0]).toEqual(['row.created', 'ASC']);
    expect(resolvePage({ sort: 'shortID', direction: 'x' }, SPEC).order[0]).toEqual(['row.shortID', 'ASC']);
  });

  it('does not repeat the tiebreak when sorting by the primary key itself', () => {
    expect(resolvePage({}, { ...SPEC, defaultSort: { column: 'row.id', direction: 'DESC' } }).order).toEqual([['row.id', 'DESC']]);
  });
});

describe('Page envelope', () => {
  it('has the spec fields in the spec order', () => {
    expect(Object.keys(new Page([1], 1, { page: 1, pageSize: 25 }))).toEqual(['value', 'totalCount', 'page', 'pageSize', 'pageCount', 'hasMore']);
  });

  it('answers a page past the end with empty value, the real total and hasMore false', () => {
    expect({ ...new Page([], 30, { page: 5, pageSize: 25 }) }).toEqual({ value: [], totalCount: 30, page: 5, pageSize: 25, pageCount: 2, hasMore: false });
  });

  it('has pageCount 0 and hasMore false when nothing matches', () => {
    expect({ ...new Page([], 0, { page: 1, pageSize: 25 }) }).toMatchObject({ pageCount: 0, hasMore: false });
  });

  it('has hasMore true only before the last page', () => {
    expect(new Page([], 51, { page: 2, pageSize: 25 }).hasMore).toBe(true);
    expect(new Page([], 50, { page: 2, pageSize: 25 }).hasMore).toBe(false);
  });
});

describe('PageQueryDto validation', () => {
  it('converts whole numbers and dates from query strings', async () => {
    const q = await parseQuery({ page: '3', pagesize: '10', MODIFIEDSINCE: '2026-11-22T09:30:00' });
    expect(q.page).toBe(3);
    expect(q.pageSize).toBe(10);
    expect(q.modifiedSince).toEqual(new Date('2026-11-22T09:30:00.000Z'));
  });

  it.each([
    [{ page: '0' }, 'page'],
    [{ page: '-2' }, 'page'],
    [{ page: '1.5' }, 'page'],
    [{ page: 'two' }, 'page'],
    [{ page: ['1', '2'] }, 'page'],
    [{ pageSize: '0' }, 'pageSize'],
    [{ pageSize: '' }, 'pageSize'],
    [{ pageSize: '1e3' }, 'pageSize'],
    [{ modifiedSince: '2026-13-01' }, 'modifiedSince'],
  ])('rejects %j as a validation_error on %s', async (query, field) => {
    const error = await parseQuery(query).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailed);
    expect(Object.keys((error as ValidationFailed).details ?? {})).toEqual([field]);
  });

  it('never fails on sort or direction, whatever they hold', async () => {
    const q = await parseQuery({ sort: ['a', 'b'], direction: ["' OR 1=1 --"] });
    expect(q.sort).toBeUndefined();
    expect(resolvePage(q, SPEC).order[0]).toEqual(['row.shortID', 'ASC']);
  });
});

describe('Link header', () => {
  it('lists first and last, and prev and next where they exist', () => {
    expect(linkHeader('/api/v1/Item?page=1', { page: 1, pageSize: 25, pageCount: 1 })).toBe(
      '</api/v1/Item?page=1&pageSize=25>; rel="first", </api/v1/Item?page=1&pageSize=25>; rel="last"',
    );
    const past = linkHeader('/api/v1/Item?PAGE=9&sort=x', { page: 9, pageSize: 10, pageCount: 2 });
    expect(past).toContain('</api/v1/Item?sort=x&page=2&pageSize=10>; rel="prev"');
    expect(past).not.toContain('rel="next"');
  });

  it('keeps the list parameters (in their canonical spelling) and drops the rest', () => {
    const link = linkHeader('/api/v1/Inventory?ITEMID=A-1&direction=DESC&junk=1&modifiedsince=2026-01-01', { page: 1, pageSize: 25, pageCount: 1 });
    expect(link).toBe(
      '</api/v1/Inventory?itemID=A-1&direction=DESC&modifiedSince=2026-01-01&page=1&pageSize=25>; rel="first", ' +
        '</api/v1/Inventory?itemID=A-1&direction=DESC&modifiedSince=2026-01-01&page=1&pageSize=25>; rel="last"',
    );
  });

  it('stays short whatever the client sent', () => {
    const link = linkHeader(`/api/v1/Item?x=${'y'.repeat(8000)}&sort=${'z'.repeat(8000)}&page=2`, { page: 2, pageSize: 25, pageCount: 3 });
    expect(link.length).toBeLessThan(300);
    expect(link).toContain('</api/v1/Item?page=3&pageSize=25>; rel="next"');
  });
});

@Entity({ name: 'row' })
class Row {
  @PrimaryColumn()
  id: number;

  @Column()
  shortID: string;

  @Column()
  created: string;

  @Column()
  modified: string;
}

describe('paginate on a real database', () => {
  let ds: DataSource;
  // Each statement sent, as TypeORM's Logger hands it over.
  const sent: string[] = [];
  const none = () => undefined;
  const logger: Logger = { logQuery: (sql) => sent.push(sql), logQueryError: none, logQuerySlow: none, logSchemaBuild: none, logMigration: none, log: none };

  beforeAll(async () => {
    ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [Row], logger });
    await ds.initialize();
    await ds.query('CREATE TABLE "row" (id INTEGER PRIMARY KEY, shortID TEXT, created TEXT, modified TEXT)');
    // 23 rows sharing only 3 sort values, inserted out of id order: the order
    // is decided by the tiebreak almost everywhere.
    for (const id of [17, 3, 22, 9, 1, 14, 6, 20, 11, 2, 19, 8, 5, 23, 12, 4, 16, 10, 21, 7, 13, 18, 15]) {
      await ds.query('INSERT INTO "row" VALUES (?, ?, ?, ?)', [id, ['B', 'A', 'C'][id % 3], '2026-01-01 00:00:00.000', `2026-01-${String(id).padStart(2, '0')} 10:00:00.000`]);
    }
  });
  afterAll(() => ds.destroy());

  const walk = async (query: PageQueryDto) => {
    const ids: number[] = [];
    for (let page = 1; ; page++) {
      const result = await paginate(ds.manager, ds.getRepository(Row).createQueryBuilder('row'), { ...query, page, pageSize: 4 }, SPEC);
      ids.push(...result.value.map((r) => r.id));
      if (!result.hasMore) return { ids, result };
    }
  };

  it('walks every row exactly once, ordered by the sort column then the primary key', async () => {
    const { ids, result } = await walk({});
    expect(result.totalCount).toBe(23);
    expect(ids).toHaveLength(23);
    const expected = Array.from({ length: 23 }, (_, i) => i + 1).sort(
      (a, b) => ['B', 'A', 'C'][a % 3].localeCompare(['B', 'A', 'C'][b % 3]) || a - b,
    );
    expect(ids).toEqual(expected);
  });

  it('walks in reverse for DESC, tiebreak reversed too', async () => {
    const asc = (await walk({})).ids;
    expect((await walk({ direction: 'DESC' })).ids).toEqual([...asc].reverse());
  });

  it('filters by modifiedSince, inclusive, and counts only the matches', async () => {
    const { ids, result } = await walk({ modifiedSince: new Date('2026-01-20T10:00:00.000Z') });
    expect(result.totalCount).toBe(4);
    expect(ids.sort((a, b) => a - b)).toEqual([20, 21, 22, 23]);
  });

  // That it is sent in the manager's transaction, where the keys are read: test/list-counts.e2e-spec.ts (one connection here).
  it("sends the list's total statement first, then the page's keys, then its rows, and takes the total it reads", async () => {
    const total = { sql: 'SELECT COUNT(*) + ? AS n FROM "row"', params: [100], total: (rows: Array<Record<string, unknown>>) => Number(rows[0].n) };
    sent.splice(0);
    const result = await paginate(ds.manager, ds.manager.createQueryBuilder(Row, 'row'), { pageSize: 4 }, SPEC, { total });
    expect(sent).toEqual([total.sql, expect.stringContaining('LIMIT 4'), expect.stringContaining('IN (')]);
    expect(result.totalCount).toBe(123);
    expect(result.value).toHaveLength(4);
  });

  // SQLite writes no USE INDEX (TypeORM writes it on MySQL only): which builder was told is what is checked here; the SQL MariaDB receives is the query-plan e2e spec's.
  it("names the sort's indexes (sortIndexes) on the keys' read alone, not under modifiedSince, not for a sort column without an entry", async () => {
    const hinted = jest.spyOn(SelectQueryBuilder.prototype, 'useIndex');
    const keys = jest.spyOn(SelectQueryBuilder.prototype, 'getRawMany');
    const rows = jest.spyOn(SelectQueryBuilder.prototype, 'getMany');
    const counted = jest.spyOn(SelectQueryBuilder.prototype, 'getRawOne');
    const sortIndexes = { 'row.shortID': ['IX_row_shortID', 'IX_row_w_shortID'] };
    const page = (query: PageQueryDto) => paginate(ds.manager, ds.manager.createQueryBuilder(Row, 'row'), { pageSize: 4, ...query }, SPEC, { sortIndexes });
    try {
      for (const query of [{}, { page: 3 }, { direction: 'DESC' }]) {
        for (const spy of [hinted, keys, rows, counted]) spy.mockClear();
        const result = await page(query);
        expect(result.value).toHaveLength(4);
        expect(hinted.mock.calls).toEqual([[['IX_row_shortID', 'IX_row_w_shortID']]]);
        // Told once, on the builder the keys were read with; not the rows' read, not the count's.
        expect(keys.mock.contexts).toContain(hinted.mock.contexts[0]);
        expect(rows.mock.contexts).toHaveLength(1);
        expect(counted.mock.contexts).toHaveLength(1);
        expect(rows.mock.contexts[0]).not.toBe(hinted.mock.contexts[0]);
        expect(counted.mock.contexts[0]).not.toBe(hinted.mock.contexts[0]);
      }
      for (const query of [{ modifiedSince: new Date('2026-01-20T10:00:00.000Z') }, { sort: 'created' }]) {
        hinted.mockClear();
        await page(query);
        expect({ query, hinted: hinted.mock.calls }).toEqual({ query, hinted: [] });
      }
    } finally {
      for (const spy of [hinted, keys, rows, counted]) spy.mockRestore();
    }
  });

  it('refuses a query builder not built on the manager given', async () => {
    const other = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [Row] });
    await expect(paginate(other.manager, ds.manager.createQueryBuilder(Row, 'row'), {}, SPEC)).rejects.toThrow('not built on the manager given');
  });
});

describe('a joined page put in order in JavaScript (PageSpec.plainOrder, MySQL)', () => {
  // Rows as the database may hand them over: a join keeps no order of its own.
  const rows = [
    { k: 3, v: 10 },
    { k: 7, v: 20 },
    { k: 1, v: 10 },
    { k: 2, v: 5 },
    { k: 5, v: 10 },
  ];

  it('orders by the sort value, then the key, both ascending or both descending', () => {
    expect(orderPlain([...rows], 'ASC').map((r) => r.k)).toEqual([2, 1, 3, 5, 7]);
    expect(orderPlain([...rows], 'DESC').map((r) => r.k)).toEqual([7, 5, 3, 1, 2]);
  });

  it('orders Dates to the millisecond and bigints beside numbers', () => {
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms));
    const dated = [
      { k: 1, v: at(2) },
      { k: 2, v: at(0) },
      { k: 3, v: at(1) },
      { k: 4, v: at(1) },
    ];
    expect(orderPlain([...dated], 'ASC').map((r) => r.k)).toEqual([2, 3, 4, 1]);
    expect(orderPlain([...dated], 'DESC').map((r) => r.k)).toEqual([1, 4, 3, 2]);
    const big = [
      { k: 9007199254740993n, v: 1 },
      { k: 9007199254740991, v: 1 },
      { k: 9007199254740992n, v: 0 },
    ];
    expect(orderPlain([...big], 'ASC').map((r) => r.k)).toEqual([9007199254740992n, 9007199254740991, 9007199254740993n]);
  });

  it('refuses a value that is neither a number, a bigint nor a Date (a column listed in plainOrder by mistake)', () => {
    expect(() => orderPlain([{ k: 1, v: 'b' }, { k: 2, v: 'a' }], 'ASC')).toThrow(/plainOrder/);
  });

  it('is what a joined read returns: the rows in order, whatever order the statement gave them', async () => {
    const statements: string[] = [];
    const m = { query: async (sql: string) => (statements.push(sql), rows.map((r) => ({ ...r }))) } as unknown as EntityManager;
    const keys = { getQueryAndParameters: () => ['SELECT keys', []] } as unknown as SelectQueryBuilder<ObjectLiteral>;
    const joined = { statement: (sql: string, value: string) => `SELECT ${value} FROM (${sql}) k`, row: (r: Record<string, unknown>) => `row ${String(r.k)}` };
    const read = await joinedRead(m, keys, joined, 'k.v', { plain: 'DESC' });
    expect(read.map((r) => r.row)).toEqual(['row 7', 'row 5', 'row 3', 'row 1', 'row 2']);
    // Ordered here, so the statement has no ORDER BY; with `sql` the database orders it.
    expect(statements).toEqual(['SELECT k.v FROM (SELECT keys) k']);
    await joinedRead(m, keys, joined, 'k.v', { sql: 'lot.received DESC, lot.recNo DESC' });
    expect(statements[1]).toBe('SELECT k.v FROM (SELECT keys) k ORDER BY lot.received DESC, lot.recNo DESC');
  });
});
