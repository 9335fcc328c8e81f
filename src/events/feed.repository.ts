import type { EntityManager } from 'typeorm';
import { byteLength, columnList, rows } from '../database/statements.js';
import { OutboxEvent } from './events.entities.js';

/** What a feed page sends of each event. */
export const FEED_FIELDS = ['id', 'seq', 'type', 'occurred', 'data'] as const;

/** Events read by their seqs in one statement, at most (see `feedEvents`). */
const SEQS_PER_READ = 500;

/** Which events a caller's feed holds: after a seq, of these types (undefined: all), touching these warehouses (item events: all). */
export interface FeedFilter {
  after: number;
  types?: string[];
  wids: number[];
}

/**
 * The statements of GET /Events, hand-written to select only what the feed
 * sends (a page of 1,000 events through the query builder's hydration, every
 * column of every row, cost several times the statement). First
 * `feedSizes`: the seq and the size in bytes of `data` of up to `limit`
 * events, in seq order; then `feedEvents`: the rows of the seqs chosen.
 */
export function feedSizes(m: EntityManager, filter: FeedFilter, limit: number): Promise<Array<Record<string, unknown>>> {
  const q = (name: string) => m.connection.driver.escape(name);
  const params: unknown[] = [];
  let where = '';
  if (filter.types !== undefined) {
    where += filter.types.length ? ` AND e.${q('type')} IN (${filter.types.map(() => '?').join(', ')})` : ' AND 1 = 0';
    params.push(...filter.types);
  }
  const placeholders = filter.wids.map(() => '?').join(', ');
  where += filter.wids.length ? ` AND (e.${q('wid')} IS NULL OR e.${q('wid')} IN (${placeholders}) OR e.${q('toWid')} IN (${placeholders}))` : ` AND e.${q('wid')} IS NULL`;
  params.push(...filter.wids, ...filter.wids);
  const size = byteLength(m, `e.${q('data')}`);
  return rows(m, `SELECT e.${q('seq')} AS seq, ${size} AS size FROM ${q('event')} e WHERE e.${q('seq')} > ?${where} ORDER BY e.${q('seq')} ASC LIMIT ?`, [filter.after, ...params, limit]);
}

/**
 * The events of these seqs, in seq order. By their seqs: a range of seqs with
 * the filters again would have MariaDB scan the table when the filters are
 * sparse. At most SEQS_PER_READ a statement: MariaDB answers an IN list of
 * 1,000 values from a temporary table.
 */
export async function feedEvents(m: EntityManager, seqs: unknown[]): Promise<Array<Record<string, unknown>>> {
  const q = (name: string) => m.connection.driver.escape(name);
  const found: Array<Record<string, unknown>> = [];
  for (let i = 0; i < seqs.length; i += SEQS_PER_READ) {
    const some = seqs.slice(i, i + SEQS_PER_READ);
    const select = `SELECT ${columnList(m, OutboxEvent, 'e', FEED_FIELDS)} FROM ${q('event')} e WHERE e.${q('seq')} IN (${some.map(() => '?').join(', ')}) ORDER BY e.${q('seq')} ASC`;
    found.push(...(await rows(m, select, some)));
  }
  return found;
}
