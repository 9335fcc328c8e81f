import type { Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ItemResponseDto } from '../catalog/item.responses.js';
import { ApiBoolean, ApiDateTime, ApiDecimal, ApiEnum, ApiInteger, ApiString } from '../http/openapi-decorators.js';
import {
  CountedResponseDto,
  HeldResponseDto,
  IssuedResponseDto,
  MovedResponseDto,
  ReceivedResponseDto,
  ReleasedResponseDto,
} from '../inventory/inventory.responses.js';
import type { OutboxEvent } from './events.entities.js';
import type { EventType } from './outbox.js';

/*
 * The feed's schemas name the answers of the operations the events describe
 * (a stock event's data is its operation's answer and more; an item event's,
 * the Item): the only place where events/ imports another feature, and only
 * its response classes, for the document.
 */

/** A stock event's `levels`: the item's stock level in a warehouse the operation touched, after it. */
@ApiSchema({ name: 'EventLevel' })
export class EventLevelResponseDto {
  @ApiInteger() wid: number;
  @ApiDecimal() inStock: number;
  @ApiDecimal() onHold: number;
  @ApiDecimal() available: number;
}

/** A stock event's data: the operation's answer, then what identifies the change and the levels after it. */
function StockEventData(answer: Type<object>, name: string) {
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
function EventOf(type: EventType, data: Type<object>, name: string) {
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

const EVENTS: Array<[EventType, Type<object>, string]> = [
  ['stock.received', StockEventData(ReceivedResponseDto, 'StockReceivedData'), 'StockReceivedEvent'],
  ['stock.issued', StockEventData(IssuedResponseDto, 'StockIssuedData'), 'StockIssuedEvent'],
  ['stock.moved', StockEventData(MovedResponseDto, 'StockMovedData'), 'StockMovedEvent'],
  ['stock.held', StockEventData(HeldResponseDto, 'StockHeldData'), 'StockHeldEvent'],
  ['stock.released', StockEventData(ReleasedResponseDto, 'StockReleasedData'), 'StockReleasedEvent'],
  ['stock.counted', StockEventData(CountedResponseDto, 'StockCountedData'), 'StockCountedEvent'],
  ['item.created', ItemResponseDto, 'ItemCreatedEvent'],
  ['item.updated', ItemResponseDto, 'ItemUpdatedEvent'],
  ['item.discontinued', ItemResponseDto, 'ItemDiscontinuedEvent'],
];

/** One event as the feed answers it; `data` is as its type's schema says. */
export interface EventResponseDto {
  id: string;
  seq: number;
  type: EventType;
  occurred: string;
  data: object;
}

/** GET /Events: the events after `after`, in seq order; `next` is the after of the next request. */
@ApiSchema({ name: 'EventPage' })
@ApiExtraModels(...EVENTS.map(([type, data, name]) => EventOf(type, data, name)))
export class EventPageResponseDto {
  @ApiProperty({ type: 'array', items: { oneOf: EVENTS.map(([, , name]) => ({ $ref: `#/components/schemas/${name}` })) } }) value: EventResponseDto[];
  @ApiInteger({ description: 'The seq of the last event sent, or after when none was: the after of the next request' }) next: number;
  @ApiBoolean() hasMore: boolean;
}

/** The body of an event, fields in the order of EXTENSIONS "Events"; `data` as it was recorded. */
export function toEventResponse(e: Pick<OutboxEvent, 'id' | 'seq' | 'type' | 'occurred' | 'data'>): EventResponseDto {
  return { id: e.id, seq: e.seq!, type: e.type as EventType, occurred: e.occurred.toISOString(), data: JSON.parse(e.data) as object };
}
