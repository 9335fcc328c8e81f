import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { byteLength, columnList, rows, toEntity } from '../database/statements.js';
import { OutboxEvent } from './events.entities.js';

/** What a feed page sends of each event. */
const FEED_FIELDS = ['id', 'seq', 'type', 'occurred', 'data'] as const;

/** An event as a feed page sends it. */
export type FeedEvent = Pick<OutboxEvent, (typeof FEED_FIELDS)[number]>;

/** Which events a caller's feed holds: after a seq, of these types (undefined: all), touching these warehouses (item events: all). */
export interface FeedFilter {
  after: number;
  types?: string[];
  wids: number[];
}

/**
 * The statements of GET /Events (and of the webhook relay, which reads the
 * same pages), hand-written to select only what the feed sends (a page of
 * 1,000 events through the query builder's hydration, every column of every
 * row, cost several times the statement). First `sizes`: the seq and the
 * size in bytes of `data` of up to `limit` + 1 events, in seq order, the
 * last only telling whether more follow; then `events`: the rows of the
 * seqs the page takes (the same filters over the seqs up to the page's
 * last), so that no more event data is read than the page sends (a page of
 * 1,000 events of 85 KB each would be 85 MB).
 */
@Injectable()
export class FeedRepository {
  constructor(private readonly reads: ListReads) {}

  /**
   * A page of the feed, read where ListReads sends it: at most `limit`
   * events in seq order, ending with the event whose `data` takes it past
   * `maxBytes`; and whether more follow.
   */
  page(filter: FeedFilter, limit: number, maxBytes: number, consistency: Consistency): Promise<{ events: FeedEvent[]; hasMore: boolean }> {
    return this.reads.run(consistency, async (m) => {
      const sizes = await this.sizes(m, filter, limit + 1);
      let count = 0;
      for (let bytes = 0; count < Math.min(sizes.length, limit) && bytes <= maxBytes; count++) bytes += Number(sizes[count].size);
      if (!count) return { events: [], hasMore: false };
      const found = await this.events(m, filter, sizes[count - 1].seq, count);
      return { events: found.map((row) => toEntity(m, OutboxEvent, row, FEED_FIELDS)), hasMore: sizes.length > count };
    });
  }

  /** The seq and the size of `data` of up to `limit` events of the filter, in seq order. */
  private sizes(m: EntityManager, filter: FeedFilter, limit: number): Promise<Array<Record<string, unknown>>> {
    const q = (name: string) => m.connection.driver.escape(name);
    const { where, params } = this.where(m, filter);
    return rows(m, `SELECT e.${q('seq')} AS seq, ${byteLength(m, `e.${q('data')}`)} AS size FROM ${q('event')} e WHERE e.${q('seq')} > ?${where} ORDER BY e.${q('seq')} ASC LIMIT ?`, [filter.after, ...params, limit]);
  }

  /**
   * The `count` events of the filter from `after` to the seq `last`, in seq
   * order: the rows `sizes` found, read again with their data. The same rows:
   * a seq is given once, and seqs become visible in order (EventSequencer),
   * so no event of that range appears between the two statements. The LIMIT
   * keeps MariaDB on the seq index, as in `sizes`: without it, a range that
   * holds most of the table is read by a scan and a sort (the filters are not
   * in the index), and so was an IN list of the seqs.
   */
  private events(m: EntityManager, filter: FeedFilter, last: unknown, count: number): Promise<Array<Record<string, unknown>>> {
    const q = (name: string) => m.connection.driver.escape(name);
    const { where, params } = this.where(m, filter);
    const select = `SELECT ${columnList(m, OutboxEvent, 'e', FEED_FIELDS)} FROM ${q('event')} e WHERE e.${q('seq')} > ? AND e.${q('seq')} <= ?${where} ORDER BY e.${q('seq')} ASC LIMIT ?`;
    return rows(m, select, [filter.after, last, ...params, count]);
  }

  /** The filter's conditions beyond the seq (` AND …`), with their parameters. */
  private where(m: EntityManager, filter: FeedFilter): { where: string; params: unknown[] } {
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
    return { where, params };
  }
}
