import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { PageQueryDto } from './page-query.dto.js';

/** Maximum page size per kind of endpoint (spec "Limits / Maximum page size"). */
export const MAX_PAGE_SIZE = { standard: 250, orders: 50, reports: 1000 } as const;
export const DEFAULT_PAGE_SIZE = 25;

export type Direction = 'ASC' | 'DESC';

/** How one list endpoint pages: what it may sort by and what its default order is. */
export interface PageSpec {
  maxPageSize: number;
  /** Public sort names (any case) → query-builder column (`item.shortID`). */
  sortable: Record<string, string>;
  /** Default order when `sort` is absent or unknown, with its own direction. */
  defaultSort: { column: string; direction: Direction };
  /** Primary key column, the final tiebreak so that paging never repeats or skips a row. */
  tiebreak: string;
  /** Column that `modifiedSince` filters on. */
  modifiedColumn: string;
}

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
  order: Array<[column: string, direction: Direction]>;
  modifiedSince: Date | null;
}

/**
 * Turns validated query parameters into a concrete page (DECISIONS "Pagination"):
 * pageSize capped at the endpoint's maximum; `sort` looked up case-insensitively
 * in the whitelist (anything else, SQL included, falls back to the default and
 * is never interpolated); `direction` ASC or DESC in any case, else the default
 * order's own direction; ties broken by the primary key in the same direction.
 */
export function resolvePage(query: PageQueryDto, spec: PageSpec): PageRequest {
  const page = query.page ?? 1;
  const pageSize = Math.min(query.pageSize ?? DEFAULT_PAGE_SIZE, spec.maxPageSize);
  const requested = typeof query.sort === 'string' ? lookup(spec.sortable, query.sort) : undefined;
  const direction = parseDirection(query.direction);
  const column = requested ?? spec.defaultSort.column;
  const dir = direction ?? (requested ? 'ASC' : spec.defaultSort.direction);
  const order: PageRequest['order'] = [[column, dir]];
  if (column !== spec.tiebreak) order.push([spec.tiebreak, dir]);
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

/** The page envelope of every paginated list, fields in the spec's order. */
export class Page<T> {
  readonly value: T[];
  readonly totalCount: number;
  readonly page: number;
  readonly pageSize: number;
  readonly pageCount: number;
  readonly hasMore: boolean;

  constructor(value: T[], totalCount: number, request: Pick<PageRequest, 'page' | 'pageSize'>) {
    this.value = value;
    this.totalCount = totalCount;
    this.page = request.page;
    this.pageSize = request.pageSize;
    this.pageCount = Math.ceil(totalCount / request.pageSize);
    this.hasMore = request.page < this.pageCount;
  }

  map<U>(fn: (item: T) => U): Page<U> {
    return new Page(this.value.map(fn), this.totalCount, this);
  }
}

/**
 * Runs a list query as one page: filter by `modifiedSince`, the total (from
 * the list's counters when the caller has it, else counted), then the page in
 * two steps (a deferred join): the page's keys in order first, which the
 * database can read from an index alone however deep the page, then the rows
 * of those keys only.
 */
export async function paginate<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  query: PageQueryDto,
  spec: PageSpec,
  total?: number,
): Promise<Page<T>> {
  const request = resolvePage(query, spec);
  if (request.modifiedSince) qb.andWhere(`${spec.modifiedColumn} >= :modifiedSince`, { modifiedSince: request.modifiedSince });
  const totalCount = total ?? (await countRows(qb));
  if (request.offset >= totalCount) return new Page<T>([], totalCount, request);
  const keyQuery = qb.clone().select(spec.tiebreak, 'k');
  request.order.forEach(([column, direction], i) => (i === 0 ? keyQuery.orderBy(column, direction) : keyQuery.addOrderBy(column, direction)));
  const keys = (await keyQuery.offset(request.offset).limit(request.pageSize).getRawMany<{ k: unknown }>()).map((r) => r.k);
  if (!keys.length) return new Page<T>([], totalCount, request);
  const key = spec.tiebreak.slice(spec.tiebreak.indexOf('.') + 1);
  const rows = await qb.andWhere(`${spec.tiebreak} IN (:...pageKeys)`, { pageKeys: keys }).getMany();
  const byKey = new Map(rows.map((row) => [String(row[key]), row]));
  return new Page(keys.map((k) => byKey.get(String(k))).filter((row): row is T => row !== undefined), totalCount, request);
}

/** COUNT(*) of a list query: every list joins at most one row per listed row. */
async function countRows<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>): Promise<number> {
  const row = await qb.clone().select('COUNT(*)', 'n').getRawOne<{ n: string | number }>();
  return Number(row?.n ?? 0);
}
