import { decimalParameter } from '../database/dialect.js';
import type { TotalStatement } from '../database/total-statement.js';
import { cursorContext, type CursorPosition, type PageCursors, type Way } from './cursor.js';
import type { Direction, PagePosition, PageRequest } from './page-request.js';

/** How a list pages beyond its PageSpec. */
export interface ListPaging {
  /** The exact total when the caller has it: a number, or the statement of the list's counters (run first); otherwise it is counted. */
  total?: number | TotalStatement;
  /** With it, pages carry next and prev cursors, and a `cursor` parameter seeks. */
  cursors?: PageCursors;
  /** The list and what narrows it (its scope, an item), which a cursor must have been made for. */
  filters?: unknown[];
}

/**
 * The condition that keeps the rows after (or before) a boundary row in a
 * list ordered by `column` then the primary key `key`, both in `direction`:
 * the expanded form of (column, key) > (value, boundaryKey), which both
 * dialects run and whose first conjunct is an index range on the column:
 *
 *   column >= :v AND (column > :v OR key > :k)      ascending, after
 *
 * (`<` for descending, and the other way for before; `key >= :k` when the
 * boundary row is included). Sorting by the primary key alone it is key > :k,
 * by a unique column alone column > :v. `decimal` compares the boundary
 * value with a decimal column as a decimal (`decimalParameter`,
 * database/dialect.ts: the value is sent as text, which MySQL would
 * otherwise compare as a double); `mysql` is the dialect's (`isMysql`).
 * Works in WHERE and, over aggregates, in HAVING.
 */
export function seekCondition(
  order: { column: string; key: string; direction: Direction; unique?: boolean },
  way: Way,
  at: { value: unknown; key: unknown; inclusive?: boolean },
  dialect: { mysql: boolean; decimal?: boolean },
): { sql: string; parameters: Record<string, unknown> } {
  const forward = (order.direction === 'ASC') === (way === 'after');
  const [strict, loose] = forward ? ['>', '>='] : ['<', '<='];
  const last = at.inclusive ? loose : strict;
  if (order.column === order.key) return { sql: `${order.key} ${last} :seekKey`, parameters: { seekKey: at.key } };
  const v = dialect.decimal ? decimalParameter('seekValue', dialect.mysql) : ':seekValue';
  if (order.unique) return { sql: `${order.column} ${last} ${v}`, parameters: { seekValue: at.value } };
  return {
    sql: `${order.column} ${loose} ${v} AND (${order.column} ${strict} ${v} OR ${order.key} ${last} :seekKey)`,
    parameters: { seekValue: at.value, seekKey: at.key },
  };
}

/** The opposite direction: a page before a boundary is read backwards from it, then put back in order. */
export function reversed(direction: Direction): Direction {
  return direction === 'ASC' ? 'DESC' : 'ASC';
}

/** One read of a page's rows, in `direction`, at most `limit`: sought from a boundary row, or past `offset` rows. */
export interface WindowRead {
  direction: Direction;
  limit: number;
  seek?: { way: Way; value: unknown; key: unknown; inclusive?: boolean };
  offset?: number;
}

/**
 * The rows of one page and where it stands, for any list that can `read` a
 * window of its rows. With a cursor: pageSize + 1 rows from its boundary (the
 * extra one tells whether more follow in that direction); a page read before
 * a boundary is read backwards and put back in order, and one more row after
 * it is probed for `hasMore`. Without: an OFFSET, and `hasMore` from the total.
 * The page number is the cursor's, counted from the page it came from; it is
 * 1 exactly when no row comes before the page, and at least 2 otherwise.
 * Every page with rows gets the cursors of its neighbours.
 *
 * `total` is the list's total, or undefined until the first `read` has
 * returned when it comes in the same query: an OFFSET page is then read before
 * its offset is compared with the total, and a page found to lie past the end
 * is dropped as it would not have been read.
 */
export async function pageWindow<R>(
  request: PageRequest,
  total: () => number | undefined,
  at: CursorPosition | null,
  list: ListPaging,
  read: (window: WindowRead) => Promise<R[]>,
  boundary: (row: R) => { value: unknown; key: unknown },
): Promise<{ rows: R[]; placed: Pick<PageRequest, 'page' | 'pageSize'>; position: PagePosition }> {
  const [[, direction]] = request.order;
  const size = request.pageSize;
  let rows: R[] = [];
  let page = request.page;
  let hasMore: boolean | undefined;
  let hasPrev = page > 1;
  if (at) {
    rows = await read({ direction: at.way === 'after' ? direction : reversed(direction), limit: size + 1, seek: at });
    const beyond = rows.length > size;
    rows = rows.slice(0, size);
    if (at.way === 'after') {
      [page, hasMore, hasPrev] = [at.page, beyond, true];
    } else {
      rows.reverse();
      [page, hasPrev] = [beyond ? Math.max(at.page, 2) : 1, beyond];
      const last = rows[rows.length - 1];
      hasMore = last ? (await read({ direction, limit: 1, seek: { way: 'after', ...boundary(last) } })).length > 0 : total()! > 0;
    }
  } else if (total() === undefined || request.offset < total()!) {
    rows = await read({ direction, limit: size, offset: request.offset });
    if (request.offset >= total()!) rows = [];
  }
  const totalCount = total()!;
  const [first, last] = [rows[0], rows[rows.length - 1]];
  const more = hasMore ?? page * size < totalCount;
  // An empty page reached by a cursor has no row of its own: its neighbour starts at the cursor's row, included.
  const next = last !== undefined ? { ...boundary(last) } : at && { value: at.value, key: at.key, inclusive: true };
  const prev = first !== undefined ? { ...boundary(first) } : at && { value: at.value, key: at.key, inclusive: true };
  const context = cursorContext(request, list.filters);
  const position: PagePosition = {
    hasMore,
    next: list.cursors && next && more ? list.cursors.encode(context, { page: page + 1, way: 'after', ...next }) : undefined,
    prev: list.cursors && prev && hasPrev ? list.cursors.encode(context, { page: page - 1, way: 'before', ...prev }) : undefined,
  };
  return { rows, placed: { page, pageSize: size }, position };
}
