import { Injectable } from '@nestjs/common';
import type { Caller } from '../auth/caller.js';
import type { Consistency } from '../database/list-reads.js';
import { TEXT_PIECE } from '../http/json-array.js';
import { eventTypes, type EventQueryDto } from './events.dto.js';
import { type EventPage, toEventResponse } from './events.responses.js';
import { type FeedEvent, FeedRepository } from './feed.repository.js';

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
  constructor(private readonly feed: FeedRepository) {}

  /** A page of the feed, read where ListReads sends it (the webhook relay reads `strong`: it delivers from the primary). */
  async page(caller: Caller, query: EventQueryDto, consistency: Consistency): Promise<EventPage> {
    const { events: found, hasMore, after } = await this.read(caller, query, consistency);
    const value = found.map(toEventResponse);
    return { value, next: value.length ? value[value.length - 1].seq : after, hasMore };
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
    const { events: found, hasMore, after } = await this.read(caller, query, consistency);
    const count = found.length;
    let written = 0;
    function* pieces(): Generator<string> {
      let piece = '{"value":[';
      let next = after;
      for (let i = 0; i < count; i++) {
        const e = found[i];
        // Let go of the event once written: a slow reader holds only the events not sent yet.
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
   * The page (FeedRepository): up to `limit` events, ending at the event
   * whose `data` takes it past MAX_PAGE_DATA (EXTENSIONS "Events").
   */
  private async read(caller: Caller, query: EventQueryDto, consistency: Consistency): Promise<{ events: FeedEvent[]; hasMore: boolean; after: number }> {
    const after = query.after ?? 0;
    const limit = query.limit ?? DEFAULT_EVENT_LIMIT;
    const types = query.types === undefined ? undefined : (eventTypes(query.types) ?? []);
    const { events, hasMore } = await this.feed.page({ after, types, wids: [...caller.warehouses] }, limit, MAX_PAGE_DATA, consistency);
    return { events, hasMore, after };
  }
}
