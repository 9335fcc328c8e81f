import type { Type } from '@nestjs/common';
import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { EventType } from '../event-contract.js';
import { ApiDateTime, ApiDecimal, ApiEnum, ApiInteger, ApiString } from '../http/openapi-decorators.js';
import type { OutboxEvent } from './events.entities.js';

/*
 * The pieces of the feed's schemas. A stock event's data is its operation's
 * answer and more, an item event's the Item: the feed's page schema, which
 * names those answers' classes, is put together at the edge
 * (EventPageResponseDto, src/openapi.ts), so that events/ imports no
 * feature that publishes events. GET /Events names it by EVENT_PAGE.
 */

/** The name of the feed page's schema, a component the edge adds to the document (src/openapi.ts). */
export const EVENT_PAGE = 'EventPage';

/** A stock event's `levels`: the item's stock level in a warehouse the operation touched, after it. */
@ApiSchema({ name: 'EventLevel' })
export class EventLevelResponseDto {
  @ApiInteger() wid: number;
  @ApiDecimal() inStock: number;
  @ApiDecimal() onHold: number;
  @ApiDecimal() available: number;
}

/** A stock event's data: the operation's answer, then what identifies the change and the levels after it. */
export function StockEventData(answer: Type<object>, name: string) {
  @ApiSchema({ name })
  class StockEventDataDto extends answer {
    @ApiString({ description: "The item's shortID" }) itemID: string;
    @ApiInteger() partNo: number;
    @ApiInteger({ nullable: true }) reasonCode: number | null;
    @ApiString({ nullable: true }) reference: string | null;
    @ApiString({ description: "The OAuth client_id of the client that made the change" }) clientId: string;
    @ApiProperty({ type: [EventLevelResponseDto] }) levels: EventLevelResponseDto[];
  }
  return StockEventDataDto;
}

/** `{id, seq, type, occurred, data}` for one type. */
export function EventOf(type: EventType, data: Type<object>, name: string) {
  @ApiSchema({ name })
  class EventDto {
    @ApiString({ description: 'Unique and stable (a UUID): the same event is always the same id' }) id: string;
    @ApiInteger({ description: "The event's position in the feed, from 1" }) seq: number;
    @ApiEnum([type]) type: EventType;
    @ApiDateTime({ description: 'When the change was made' }) occurred: string;
    @ApiProperty({ type: data }) data: object;
  }
  return EventDto;
}

/** One event as the feed answers it; `data` is as its type's schema says. */
export interface EventResponseDto {
  id: string;
  seq: number;
  type: EventType;
  occurred: string;
  data: object;
}

/** GET /Events: the events after `after`, in seq order; `next` is the after of the next request. Its schema: EventPageResponseDto (src/openapi.ts). */
export interface EventPage {
  value: EventResponseDto[];
  next: number;
  hasMore: boolean;
}

/** The body of an event, fields in the order of EXTENSIONS "Events"; `data` as it was recorded. */
export function toEventResponse(e: Pick<OutboxEvent, 'id' | 'seq' | 'type' | 'occurred' | 'data'>): EventResponseDto {
  return { id: e.id, seq: e.seq!, type: e.type as EventType, occurred: e.occurred.toISOString(), data: JSON.parse(e.data) as object };
}
