import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { toEntity } from '../database/statements.js';
import { TEXT_PIECE } from '../http/json-array.js';
import { eventTypes, type EventQueryDto } from './events.dto.js';
import { OutboxEvent } from './events.entities.js';
import { type EventPage, toEventResponse } from './events.responses.js';
import { FEED_FIELDS, feedEvents, feedSizes } from './feed.repository.js';

/** The page size of GET /Events without `limit` (EXTENSIONS "Events"). */
export const DEFAULT_EVENT_LIMIT = 100;

/** A page stops at the event whose `data` takes it past this many bytes (EXTENSIONS "Events"): no page costs more memory. */
export const MAX_PAGE_DATA = 1024 * 1024;

/**
 * GET /Events: the events with a seq after `after`, in seq order, those the
 * caller may see: a stock event when it touched one of the caller's
 * warehouses, every item event. Only events with a seq are read, and seqs
 * become visible in order (EventSequencer), so a page never skips an event
 * that a later page could show.
 */
@Injectable()
export class EventsService {
  constructor(private readonly reads: ListReads) {}

  /** A page of the feed, read where ListReads sends it (the webhook relay reads `strong`: it delivers from the primary). */
  page(caller: Caller, query: EventQueryDto, consistency: Consistency): Promise<EventPage> {
    return this.reads.run(consistency, async (m) => {
      const { rows: found, hasMore, after } = await this.read(m, caller, query);
      const value = found.map((row) => toEventResponse(toEntity(m, OutboxEvent, row, FEED_FIELDS)));
      return { value, next: value.length ? value[value.length - 1].seq : after, hasMore };
    });
  }

  /**
   * The same page as the JSON text GET /Events answers, exactly what
   * `res.json(page(...))` would send, in pieces of about `TEXT_PIECE`
   * characters for the answer to be written as they come
   * (`jsonTextFile`): each event's stored `data` (written by JSON.stringify
   * when the change was made) goes into the text as it is, not parsed into
   * objects to be written out again. A page of 1,000 events is never one
   * string: a text of that size (600 KB and more) is a memory mapping of its
   * own, made and dropped per page. `written` counts the events in the
   * pieces made so far (for the log of an answer cut short).
   */
  async pageText(caller: Caller, query: EventQueryDto, consistency: Consistency): Promise<{ pieces: Iterable<string>; written: () => number }> {
    const { rows: found, hasMore, after, toEvent } = await this.reads.run(consistency, async (m) => ({
      ...(await this.read(m, caller, query)),
      toEvent: (row: Record<string, unknown>) => toEntity(m, OutboxEvent, row, FEED_FIELDS),
    }));
    const count = found.length;
    let written = 0;
    function* pieces(): Generator<string> {
      let piece = '{"value":[';
      let next = after;
      for (let i = 0; i < count; i++) {
        const e = toEvent(found[i]);
        // Let go of the row once written: a slow reader holds only the rows not sent yet.
        found[i] = undefined as never;
        next = e.seq!;
        piece += `${i ? ',' : ''}{"id":${JSON.stringify(e.id)},"seq":${next},"type":${JSON.stringify(e.type)},"occurred":"${e.occurred.toISOString()}","data":${e.data}}`;
        if (piece.length >= TEXT_PIECE) {
          written = i + 1;
          yield piece;
          piece = '';
        }
      }
      written = count;
      yield `${piece}],"next":${next},"hasMore":${hasMore}}`;
    }
    return { pieces: pieces(), written: () => written };
  }

  /**
   * The page (feed.repository.ts): the sizes of up to limit + 1 events, the
   * last only telling whether more follow; the page ends at the event whose
   * `data` takes it past MAX_PAGE_DATA (EXTENSIONS "Events"); then those
   * events only, so that no more event data is read than the page sends (a
   * page of 1,000 events of 85 KB each would be 85 MB).
   */
  private async read(m: EntityManager, caller: Caller, query: EventQueryDto): Promise<{ rows: Record<string, unknown>[]; hasMore: boolean; after: number }> {
    const after = query.after ?? 0;
    const limit = query.limit ?? DEFAULT_EVENT_LIMIT;
    const types = query.types === undefined ? undefined : (eventTypes(query.types) ?? []);
    const sizes = await feedSizes(m, { after, types, wids: [...caller.warehouses] }, limit + 1);
    let count = 0;
    for (let bytes = 0; count < Math.min(sizes.length, limit) && bytes <= MAX_PAGE_DATA; count++) bytes += Number(sizes[count].size);
    if (!count) return { rows: [], hasMore: false, after };
    const found = await feedEvents(m, sizes.slice(0, count).map((s) => s.seq));
    return { rows: found, hasMore: sizes.length > count, after };
  }
}
