import 'reflect-metadata';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import type { AppConfig } from '../config/config.js';
import { ValidationFailed } from '../errors.js';
import { type CursorContext, PageCursors } from './cursor.js';
import { linkHeader } from './page-headers.interceptor.js';
import { MAX_PAGE_SIZE, type Page, paginate, type PageSpec } from './page.js';
import type { PageQueryDto } from './page-query.dto.js';

const cursors = (secret = 'a secret of the deployment') => new PageCursors({ listCursorSecret: secret } as AppConfig);
const CONTEXT: CursorContext = { sort: 'row.shortID', direction: 'ASC', pageSize: 4, filters: ['rows', [1, 2]] };
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailed);
    return (error as ValidationFailed).details?.cursor?.[0];
  }
  throw new Error('expected a validation_error');
};

describe('PageCursors', () => {
  const at = { page: 3, way: 'after' as const, value: new Date('2026-01-02T03:04:05.678Z'), key: 17 };

  it('reads back the position it wrote, datetimes included', () => {
    const c = cursors();
    expect(c.decode(c.encode(CONTEXT, at), CONTEXT)).toEqual({ ...at, inclusive: false });
    expect(c.decode(c.encode(CONTEXT, { ...at, value: 'cur-01', inclusive: true }), CONTEXT, 3)).toEqual({ ...at, value: 'cur-01', inclusive: true });
  });

  it('is opaque text safe in a URL', () => {
    expect(cursors().encode(CONTEXT, at)).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
  });

  it('refuses another context, another page, another key, and any change', () => {
    const c = cursors();
    const token = c.encode(CONTEXT, at);
    expect(refusal(() => c.decode(token, { ...CONTEXT, sort: 'row.created' }))).toMatch(/another sort/);
    expect(refusal(() => c.decode(token, { ...CONTEXT, direction: 'DESC' }))).toMatch(/another direction/);
    expect(refusal(() => c.decode(token, { ...CONTEXT, pageSize: 5 }))).toMatch(/another pageSize/);
    expect(refusal(() => c.decode(token, { ...CONTEXT, filters: ['rows', [1]] }))).toMatch(/another list, warehouse scope or filter/);
    expect(refusal(() => c.decode(token, CONTEXT, 4))).toMatch(/leads to page 3/);
    expect(refusal(() => cursors('another deployment').decode(token, CONTEXT))).toMatch(/not valid/);
    // Every character changed to every other of the alphabet (the MAC's last one included, whose low bits base64 would ignore).
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    for (let i = 0; i < token.length; i++) {
      for (const ch of alphabet) {
        if (ch === token[i]) continue;
        expect(refusal(() => c.decode(token.slice(0, i) + ch + token.slice(i + 1), CONTEXT))).toMatch(/not valid/);
      }
    }
  });
});

describe('Link header with cursors', () => {
  it('puts the cursors on next and prev, never on first and last', () => {
    const page = { page: 2, pageSize: 10, pageCount: 5, hasMore: true, nextCursor: 'n.x', prevCursor: 'p.x' } as Page<unknown>;
    expect(linkHeader('/api/v1/Item?sort=partNo&cursor=old', page)).toBe(
      '</api/v1/Item?sort=partNo&page=1&pageSize=10>; rel="first", </api/v1/Item?sort=partNo&page=1&pageSize=10&cursor=p.x>; rel="prev", ' +
        '</api/v1/Item?sort=partNo&page=3&pageSize=10&cursor=n.x>; rel="next", </api/v1/Item?sort=partNo&page=5&pageSize=10>; rel="last"',
    );
  });

  it('follows hasMore for next, past pageCount too', () => {
    expect(linkHeader('/x', { page: 6, pageSize: 10, pageCount: 5, hasMore: true, nextCursor: 'n.x' })).toContain('</x?page=7&pageSize=10&cursor=n.x>; rel="next"');
    expect(linkHeader('/x', { page: 2, pageSize: 10, pageCount: 5, hasMore: false })).not.toContain('rel="next"');
  });
});

@Entity({ name: 'row' })
class Row {
  @PrimaryColumn()
  id: number;

  @Column()
  shortID: string;
}

const SPEC: PageSpec = { maxPageSize: MAX_PAGE_SIZE.standard, sortable: { shortID: 'row.shortID' }, defaultSort: { column: 'row.shortID', direction: 'ASC' }, tiebreak: 'row.id', modifiedColumn: 'row.id' };

describe('paginate by cursor on a real database', () => {
  let ds: DataSource;
  const c = cursors();
  beforeAll(async () => {
    ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [Row] });
    await ds.initialize();
    await ds.query('CREATE TABLE "row" (id INTEGER PRIMARY KEY, shortID TEXT)');
    for (let id = 1; id <= 23; id++) await ds.query('INSERT INTO "row" VALUES (?, ?)', [id, ['B', 'A', 'C'][id % 3]]);
  });
  afterAll(() => ds.destroy());

  const page = (query: PageQueryDto) => paginate(ds.manager, ds.getRepository(Row).createQueryBuilder('row'), { pageSize: 4, ...query }, SPEC, { cursors: c, filters: ['rows'] });
  const cursorIn = (p: Page<Row>, rel: 'next' | 'prev') => (rel === 'next' ? p.nextCursor : p.prevCursor);

  it('walks forward by next and back by prev over the same pages as page numbers give', async () => {
    const byNumber: number[][] = [];
    for (let n = 1; n <= 6; n++) byNumber.push((await page({ page: n })).value.map((r) => r.id));
    const walked: Array<Page<Row>> = [await page({})];
    while (walked[walked.length - 1].nextCursor) walked.push(await page({ cursor: cursorIn(walked[walked.length - 1], 'next') }));
    expect(walked.map((p) => p.value.map((r) => r.id))).toEqual(byNumber);
    expect(walked.map((p) => p.page)).toEqual([1, 2, 3, 4, 5, 6]);
    const back: Array<Page<Row>> = [walked[5]];
    while (back[back.length - 1].prevCursor) back.push(await page({ cursor: cursorIn(back[back.length - 1], 'prev') }));
    expect(back.map((p) => p.value.map((r) => r.id))).toEqual([...byNumber].reverse());
    expect(back.map((p) => p.page)).toEqual([6, 5, 4, 3, 2, 1]);
  });

  it('continues from the values of a removed boundary row, where page numbers would skip a row', async () => {
    const first = await page({});
    const second = (await page({ page: 2 })).value.map((r) => r.id);
    await ds.query('DELETE FROM "row" WHERE id = ?', [first.value[3].id]);
    const next = await page({ cursor: first.nextCursor });
    expect(next.page).toBe(2);
    expect(next.value.map((r) => r.id)).toEqual(second);
    expect((await page({ page: 2 })).value.map((r) => r.id)).not.toEqual(second);
  });
});
