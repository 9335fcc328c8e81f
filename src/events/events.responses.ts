import type { Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
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

/**
 * A stock event's `levels`: the item's stock level in a warehouse the
 * operation touched, after it: EXTENSIONS' `{wid, inStock, onHold,
 * available}`, then the documents' figures.
 */
@ApiSchema({ name: 'EventLevel' })
export class EventLevelResponseDto {
  @ApiInteger() wid: number;
  @ApiDecimal() inStock: number;
  @ApiDecimal() onHold: number;
  @ApiDecimal() available: number;
  @ApiDecimal() committed: number;
  @ApiDecimal() packed: number;
  @ApiDecimal() onOrder: number;
  @ApiDecimal() aSN: number;
}

/** What varies in a stock event's data besides its answer. */
export interface StockEventDataOptions {
  /** The document the operation was made against, named after `clientId` (an Issue's allocation, a Receive's expectation). */
  document?: 'allocationId' | 'expectationId';
  /** Made by the service itself (an allocation's expiry): `clientId` is null. */
  byService?: true;
}

/** A stock event's data: the operation's answer, then what identifies the change and the levels after it. */
export function StockEventData(answer: Type<object>, name: string, options: StockEventDataOptions = {}) {
  const client = options.byService
    ? ApiString({ nullable: true, description: 'null: made by the service itself, not by a client' })
    : ApiString({ description: 'The OAuth client_id of the client that made the change' });
  @ApiSchema({ name })
  class StockEventDataDto extends answer {
    @ApiString({ description: "The item's shortID" }) itemID: string;
    @ApiInteger() partNo: number;
    @ApiInteger({ nullable: true }) reasonCode: number | null;
    @ApiString({ nullable: true }) reference: string | null;
    @client clientId: string | null;
  }
  if (options.document === 'allocationId') {
    @ApiSchema({ name })
    class AgainstAllocationDto extends StockEventDataDto {
      @ApiInteger({ description: 'The allocation the Issue shipped from' }) allocationId: number;
      @ApiProperty({ type: [EventLevelResponseDto] }) levels: EventLevelResponseDto[];
    }
    return AgainstAllocationDto;
  }
  if (options.document === 'expectationId') {
    @ApiSchema({ name })
    class AgainstExpectationDto extends StockEventDataDto {
      @ApiInteger({ description: 'The expectation the Receive received against' }) expectationId: number;
      @ApiProperty({ type: [EventLevelResponseDto] }) levels: EventLevelResponseDto[];
    }
    return AgainstExpectationDto;
  }
  @ApiSchema({ name })
  class WithLevelsDto extends StockEventDataDto {
    @ApiProperty({ type: [EventLevelResponseDto] }) levels: EventLevelResponseDto[];
  }
  return WithLevelsDto;
}

/** `{id, seq, type, occurred, data}` for one type; `data` one of several shapes when given several. */
export function EventOf(type: EventType, data: Type<object> | Array<Type<object>>, name: string) {
  const shapes = Array.isArray(data) ? data : [data];
  @ApiSchema({ name })
  @ApiExtraModels(...shapes)
  class EventDto {
    @ApiString({ description: 'Unique and stable (a UUID): the same event is always the same id' }) id: string;
    @ApiInteger({ description: "The event's position in the feed, from 1" }) seq: number;
    @ApiEnum([type]) type: EventType;
    @ApiDateTime({ description: 'When the change was made' }) occurred: string;
    @ApiProperty(shapes.length === 1 ? { type: shapes[0] } : { oneOf: shapes.map((shape) => ({ $ref: getSchemaPath(shape) })) }) data: object;
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
