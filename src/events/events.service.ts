import { Injectable } from '@nestjs/common';
import { Brackets, type EntityManager } from 'typeorm';
import type { Caller } from '../auth/caller.js';
import { type Consistency, ListReads } from '../database/list-reads.js';
import { eventTypes, type EventQueryDto } from './events.dto.js';
import { OutboxEvent } from './events.entities.js';
import { type EventPageResponseDto, toEventResponse } from './events.responses.js';

/** The page size of GET /Events without `limit` (EXTENSIONS "Events"). */
export const DEFAULT_EVENT_LIMIT = 100;

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
  page(caller: Caller, query: EventQueryDto, consistency: Consistency): Promise<EventPageResponseDto> {
    return this.reads.run(consistency, (m) => this.read(m, caller, query));
  }

  private async read(m: EntityManager, caller: Caller, query: EventQueryDto): Promise<EventPageResponseDto> {
    const after = query.after ?? 0;
    const limit = query.limit ?? DEFAULT_EVENT_LIMIT;
    const qb = m.createQueryBuilder(OutboxEvent, 'e').where('e.seq > :after', { after }).orderBy('e.seq', 'ASC').limit(limit + 1);
    if (query.types !== undefined) qb.andWhere('e.type IN (:...types)', { types: eventTypes(query.types) });
    const wids = [...caller.warehouses];
    qb.andWhere(
      new Brackets((w) => {
        w.where('e.wid IS NULL');
        if (wids.length) w.orWhere('e.wid IN (:...wids)', { wids }).orWhere('e.toWid IN (:...wids)', { wids });
      }),
    );
    const rows = await qb.getMany();
    const value = rows.slice(0, limit).map(toEventResponse);
    return { value, next: value.length ? value[value.length - 1].seq : after, hasMore: rows.length > limit };
  }
}
