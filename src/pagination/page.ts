import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { isMysql } from '../database/dialect.js';
import { cursorContext, type CursorPosition } from './cursor.js';
import { type ListPaging, pageWindow, seekCondition, type WindowRead } from './keyset.js';
import type { Direction, PagePosition, PageQuery, PageRequest } from './page-request.js';

/** What a list hands paginate and requestedCursor besides its PageSpec (declared beside pageWindow, which takes it too). */
export type { ListPaging } from './keyset.js';

/** Maximum page size per kind of endpoint (spec "Limits / Maximum page size"). */
export const MAX_PAGE_SIZE = { standard: 250, orders: 50, reports: 1000 } as const;
export const DEFAULT_PAGE_SIZE = 25;

/** How one list endpoint pages: what it may sort by and what its default order is. */
export interface PageSpec {
  maxPageSize: number;
  /** Public sort names (any case) → query-builder column (`item.shortIDKey`). */
  sortable: Record<string, string>;
  /** Default order when `sort` is absent or unknown, with its own direction. */
  defaultSort: { column: string; direction: Direction };
  /** Primary key column, the final tiebreak so that paging never repeats or skips a row. */
  tiebreak: string;
  /** Column that `modifiedSince` filters on. */
  modifiedColumn: string;
  /** Sort columns holding decimals: a cursor's value is compared with them as a decimal. */
  decimals?: string[];
  /** Sort columns unique on their own: they need no tiebreak (and a unique index would not serve one). */
  unique?: string[];
  /**
   * Sort columns of integers and datetimes, which MySQL/MariaDB hand over as
   * numbers and Dates: a page read with its rows (JoinedRows) is put in order
   * in JavaScript instead of by the database, which would sort the joined
   * rows in a temporary table. Text and decimals are ordered by the database.
   */
  plainOrder?: string[];
}

/**
 * Turns validated query parameters into a concrete page (DECISIONS "Pagination"):
 * pageSize capped at the endpoint's maximum; `sort` looked up case-insensitively
 * in the whitelist (anything else, SQL included, falls back to the default and
 * is never interpolated); `direction` ASC or DESC in any case, else the default
 * order's own direction; ties broken by the primary key in the same direction.
 */
export function resolvePage(query: PageQuery, spec: PageSpec): PageRequest {
  const page = query.page ?? 1;
  const pageSize = Math.min(query.pageSize ?? DEFAULT_PAGE_SIZE, spec.maxPageSize);
  const requested = typeof query.sort === 'string' ? lookup(spec.sortable, query.sort) : undefined;
  const direction = parseDirection(query.direction);
  const column = requested ?? spec.defaultSort.column;
  const dir = direction ?? (requested ? 'ASC' : spec.defaultSort.direction);
  const order: PageRequest['order'] = [[column, dir]];
  if (column !== spec.tiebreak && !spec.unique?.includes(column)) order.push([spec.tiebreak, dir]);
  return { page, pageSize, offset: (page - 1) * pageSize, order, modifiedSince: query.modifiedSince ?? null };
}

function lookup(sortable: Record<string, string>, name: string): string | undefined {
  const wanted = name.trim().toLowerCase();
  const key = Object.keys(sortable).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : sortable[key];
}

function parseDirection(value: string | undefined): Direction | undefined {
  const upper = value?.trim().toUpperCase();
  return upper === 'ASC' || upper === 'DESC' ? upper : undefined;
}

/** The page envelope of every paginated list, fields in the spec's order; the cursors are for the Link header, not the body. */
export class Page<T> {
  readonly value: T[];
  readonly totalCount: number;
  readonly page: number;
  readonly pageSize: number;
  readonly pageCount: number;
  readonly hasMore: boolean;
  readonly #position: PagePosition;

  constructor(value: T[], totalCount: number, request: Pick<PageRequest, 'page' | 'pageSize'>, position: PagePosition = {}) {
    this.value = value;
    this.totalCount = totalCount;
    this.page = request.page;
    this.pageSize = request.pageSize;
    this.pageCount = Math.ceil(totalCount / request.pageSize);
    this.hasMore = position.hasMore ?? request.page < this.pageCount;
    this.#position = position;
  }

  /** The cursor of the next page (rows after this page's last), if there is one. */
  get nextCursor(): string | undefined {
    return this.#position.next;
  }

  /** The cursor of the previous page (rows before this page's first), if there is one. */
  get prevCursor(): string | undefined {
    return this.#position.prev;
  }

  map<U>(fn: (item: T) => U): Page<U> {
    return new Page(this.value.map(fn), this.totalCount, this, { ...this.#position, hasMore: this.hasMore });
  }
}

/** The position a request's `cursor` seeks to, or null without one; a cursor not made for this request is a validation_error. */
export function requestedCursor(query: PageQuery, request: PageRequest, list: ListPaging): CursorPosition | null {
  return list.cursors && query.cursor !== undefined ? list.cursors.decode(query.cursor, cursorContext(request, list.filters), query.page) : null;
}

/** A key row of a page: its primary key and its sort value (and its answer, when read with it: JoinedRows). */
interface Key<R = unknown> {
  k: unknown;
  v?: unknown;
  row?: R;
}

/**
 * Runs a list query as one page: filter by `modifiedSince`, the total (from
 * the list's counters when the caller has it, else counted), then the page in
 * two steps (a deferred join): the page's keys in order first, read from an
 * index, then the rows of those keys only (or both in one statement, the keys
 * as a derived table: JoinedRows). Page 1 without a cursor reads its keys
 * while the total is read. With a cursor the keys are sought
 * after (or before) the cursor's row (keyset: as cheap on page 4,000 as on
 * page 1); with `page` alone they are an OFFSET. Either way the page gets the
 * cursors of its neighbours (pageWindow), so following `next` seeks. On
 * MySQL the keys' statement names the sort's indexes when the list hands
 * them (`sortIndexes`, SortIndexHints).
 *
 * `m` is the manager the list reads through (the one ListReads.run gives) and
 * `qb` is built on it (`m.createQueryBuilder`): the total statement runs as
 * `m.query`, so it reads where the page's keys and rows are read (the replica
 * or the primary, and `m`'s transaction when it has one).
 */
export async function paginate<T extends ObjectLiteral, R = T>(
  m: EntityManager,
  qb: SelectQueryBuilder<T>,
  query: PageQuery,
  spec: PageSpec,
  list: ListPaging & {
    /** The page's rows read with its keys, in one statement of the list's own (JoinedRows); else `qb`'s entities, by a second statement. */
    joined?: JoinedRows<R>;
    /** The indexes that read the page's keys in each sort's order (SortIndexHints); given unless a filter of the list's own (an item) narrows it. */
    sortIndexes?: SortIndexHints;
  } = {},
): Promise<Page<R>> {
  if (qb.dataSource !== m.dataSource) throw new Error('paginate: the query builder is not built on the manager given');
  const request = resolvePage(query, spec);
  const at = requestedCursor(query, request, list);
  if (request.modifiedSince) qb.andWhere(`${spec.modifiedColumn} >= :modifiedSince`, { modifiedSince: request.modifiedSince });
  const mysql = isMysql(m);
  const total = list.total;
  const counted = (): Promise<number> =>
    typeof total === 'number' ? Promise.resolve(total) : total ? m.query(total.sql, total.params).then((found: Array<Record<string, unknown>>) => total.total(found)) : countRows(qb);
  let totalCount: number | undefined;
  // Page 1 (no cursor, no offset) is read whatever the total: its keys are read while the total is (pageWindow waits
  // for the total only after the first read). Any other page first learns the total, to skip an offset past the end.
  let pending = typeof total !== 'number' && !at && request.offset === 0 ? counted() : undefined;
  if (!pending) totalCount = await counted();
  const [[column, direction], tiebreak] = request.order;
  // The keys' statement names the sort's indexes (SortIndexHints), but not under modifiedSince, which reads its own index.
  const hint = request.modifiedSince ? undefined : list.sortIndexes?.[column];
  /** A joined read's order: in JavaScript on MySQL for plain columns (JoinedRows), else the database's ORDER BY. */
  const order = (way: Direction): JoinedOrder =>
    mysql && spec.plainOrder?.includes(column) && (!tiebreak || spec.plainOrder.includes(spec.tiebreak))
      ? { plain: way }
      : { sql: request.order.map(([c]) => `${c} ${way}`).join(', ') };
  const read = async (w: WindowRead): Promise<Key<R>[]> => {
    const keys = qb.clone().select(spec.tiebreak, 'k');
    if (hint) keys.useIndex(typeof hint === 'string' ? hint : [...hint]);
    if (column !== spec.tiebreak) keys.addSelect(column, 'v');
    keys.orderBy(column, w.direction);
    if (tiebreak) keys.addOrderBy(spec.tiebreak, w.direction);
    if (w.seek) {
      const order = { column, key: spec.tiebreak, direction, unique: !tiebreak };
      const seek = seekCondition(order, w.seek.way, w.seek, { mysql, decimal: spec.decimals?.includes(column) });
      keys.andWhere(seek.sql, seek.parameters);
    }
    if (w.offset) keys.offset(w.offset);
    keys.limit(w.limit);
    const found = list.joined ? joinedRead(m, keys, list.joined, column === spec.tiebreak ? 'k.k' : 'k.v', order(w.direction)) : keys.getRawMany<Key<R>>();
    if (!pending) return found;
    const [rows, counting] = await Promise.all([found, pending]);
    [totalCount, pending] = [counting, undefined];
    return rows;
  };
  const boundary = (key: Key<R>) => ({ value: column === spec.tiebreak ? key.k : key.v, key: key.k });
  const { rows: keys, placed, position } = await pageWindow(request, () => totalCount, at, list, read, boundary);
  if (!keys.length) return new Page<R>([], totalCount!, placed, position);
  if (list.joined) return new Page(keys.map((r) => r.row!), totalCount!, placed, position);
  const byKey = await entitiesByKey<T, R>(qb, spec, keys);
  return new Page(keys.map((r) => byKey.get(String(r.k))).filter((row): row is R => row !== undefined), totalCount!, placed, position);
}

/**
 * MySQL/MariaDB: for each sort column of a list (PageSpec.sortable's values),
 * the indexes that read its page's keys in that order, which paginate names
 * to the optimizer for the keys' statement (USE INDEX; TypeORM's `useIndex`
 * writes it on MySQL only) unless `modifiedSince` filters the page. Where a
 * condition such as `wID IN (…)` or `discontinued = 0` starts many indexes,
 * MariaDB otherwise estimates its range in each of them ("index dives")
 * before every page, only to choose one of these. The optimizer still
 * chooses among those named (a scope's global index or the warehouse's
 * own). A list hands them to paginate unless a filter of its own (an item)
 * narrows the list, which has an index of its own; paginate leaves them out
 * when `modifiedSince` filters the page. A sort column left out is read
 * without a hint.
 */
export type SortIndexHints = Readonly<Record<string, string | readonly string[]>>;

/**
 * A list's rows read together with its page's keys, in one statement: the
 * keys' statement (columns `k` and `v`, built by paginate from the list's
 * query builder) becomes the derived table `k` of the list's `statement`,
 * which joins it to the rows by primary key and selects `k.k AS k` and
 * `<value> AS v` with the row's own columns (`value` is `k.v`, or `k.k` when
 * the page is sorted by its key). A derived table's order does not survive
 * a join, so paginate orders the joined rows again by the page's order: in
 * JavaScript on MySQL when the sort column is one of PageSpec.plainOrder
 * (datetime(3) and integer columns: a Date holds every millisecond), else by
 * an ORDER BY of its columns as the query builder names them
 * (`lot.received`), for which the statement must name the joined table as
 * the query builder's alias. `row` turns a joined row into the answer.
 */
export interface JoinedRows<R> {
  statement(keys: string, value: 'k.k' | 'k.v'): string;
  row(joined: Record<string, unknown>): R;
}

/**
 * The statement of a JoinedRows: the keys' statement as the derived table
 * `k`, its key and sort value as `k` and `v`, then `columns`, from `k` and
 * `joins` (the joins by primary key, the first of them to `k.k`). On MySQL the
 * join starts from the keys (STRAIGHT_JOIN): a deep page's derived table is
 * estimated at every row, and MariaDB would otherwise start elsewhere.
 */
export function joinedStatement(m: EntityManager, keys: string, value: 'k.k' | 'k.v', columns: string, joins: string): string {
  return `SELECT ${isMysql(m) ? 'STRAIGHT_JOIN ' : ''}k.k AS k, ${value} AS v, ${columns} FROM (${keys}) k ${joins}`;
}

/** How a joined read is ordered: by the database (`sql`, the ORDER BY list) or here, by each row's sort value then key (`plain`). */
export type JoinedOrder = { sql: string } | { plain: Direction };

/** The keys of a window read with their rows (JoinedRows): each row's key and sort value, and its answer, in the window's order. */
export async function joinedRead<T extends ObjectLiteral, R>(m: EntityManager, keys: SelectQueryBuilder<T>, joined: JoinedRows<R>, value: 'k.k' | 'k.v', order: JoinedOrder): Promise<Key<R>[]> {
  const [sql, parameters] = keys.getQueryAndParameters();
  const statement = 'sql' in order ? `${joined.statement(sql, value)} ORDER BY ${order.sql}` : joined.statement(sql, value);
  const found = (await m.query(statement, parameters)) as Array<Record<string, unknown>>;
  const read = found.map((row): Key<R> => ({ k: row.k, v: row.v, row: joined.row(row) }));
  return 'plain' in order ? orderPlain(read, order.plain) : read;
}

/**
 * Rows of a joined read in the page's order when it is made here
 * (PageSpec.plainOrder): by sort value `v`, then key `k`, both in
 * `direction`, as MySQL's ORDER BY of those columns would. Sorts `rows`, an
 * array of paginate's own, in place, and returns it.
 */
export function orderPlain<K extends { k: unknown; v?: unknown }>(rows: K[], direction: Direction): K[] {
  const sign = direction === 'ASC' ? 1 : -1;
  return rows.sort((a, b) => sign * (comparePlain(a.v, b.v) || comparePlain(a.k, b.k)));
}

/** Two values of a plain sort column as the driver hands them over (PageSpec.plainOrder): numbers, bigints or Dates. */
function comparePlain(a: unknown, b: unknown): number {
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if ((typeof x !== 'number' && typeof x !== 'bigint') || (typeof y !== 'number' && typeof y !== 'bigint')) {
    throw new Error(`a plain sort column read as ${typeof a} and ${typeof b}: list it out of PageSpec.plainOrder`);
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The page's rows as `qb`'s entities, by String(key). */
async function entitiesByKey<T extends ObjectLiteral, R>(qb: SelectQueryBuilder<T>, spec: PageSpec, keys: Key[]): Promise<Map<string, R>> {
  const key = spec.tiebreak.slice(spec.tiebreak.indexOf('.') + 1);
  const rows = await qb.andWhere(`${spec.tiebreak} IN (:...pageKeys)`, { pageKeys: keys.map((r) => r.k) }).getMany();
  return new Map(rows.map((row) => [String(row[key]), row as unknown as R]));
}

/** COUNT(*) of a list query: every list joins at most one row per listed row. */
async function countRows<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>): Promise<number> {
  const row = await qb.clone().select('COUNT(*)', 'n').getRawOne<{ n: string | number }>();
  return Number(row?.n ?? 0);
}
