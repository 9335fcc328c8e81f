import { Controller, Get, HttpStatus, Optional, Query, Req, type StreamableFile, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiSchema, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Caller } from '../auth/caller.js';
import { CurrentCaller, RequirePermission } from '../auth/guards.js';
import { SecurityId } from '../auth/security-id.js';
import { ItemResponseDto } from '../catalog/item.responses.js';
import type { EventType } from '../event-contract.js';
import { ApiAnswer, ApiBoolean, ApiInteger } from '../http/openapi-decorators.js';
import { jsonTextFile } from '../http/json-array.js';
import { AppLogger } from '../http/logger.js';
import { ListRead, ReadConsistency } from '../http/consistency.js';
import type { Consistency } from '../database/list-reads.js';
import { AllocatedResponseDto, AllocationCancelledResponseDto, AllocationExpiredResponseDto, PackedResponseDto } from '../inventory/allocation.responses.js';
import { ExpectationCancelledResponseDto, ExpectationShippedResponseDto, ExpectedResponseDto } from '../inventory/expectation.responses.js';
import {
  CountedResponseDto,
  HeldResponseDto,
  IssuedResponseDto,
  MovedResponseDto,
  ReceivedResponseDto,
  ReleasedResponseDto,
} from '../inventory/inventory.responses.js';
import { EventQueryDto } from './events.dto.js';
import { EventOf, type EventPage, type EventResponseDto, StockEventData } from './events.responses.js';
import { EventsService } from './events.service.js';
import { EventSequencer } from './sequencer.js';

/*
 * The feed's schemas name the answers of the operations the events describe
 * (a stock event's data is its operation's answer and more; an item event's,
 * the Item). They are put together here, at the edge, the one layer that may
 * import both the feed and the features that publish events.
 */
const EVENTS: Array<[EventType, Type<object> | Array<Type<object>>, string]> = [
  [
    'stock.received',
    [StockEventData(ReceivedResponseDto, 'StockReceivedData'), StockEventData(ReceivedResponseDto, 'StockReceivedAgainstExpectationData', { document: 'expectationId' })],
    'StockReceivedEvent',
  ],
  ['stock.issued', [StockEventData(IssuedResponseDto, 'StockIssuedData'), StockEventData(IssuedResponseDto, 'StockIssuedFromAllocationData', { document: 'allocationId' })], 'StockIssuedEvent'],
  ['stock.moved', StockEventData(MovedResponseDto, 'StockMovedData'), 'StockMovedEvent'],
  ['stock.held', StockEventData(HeldResponseDto, 'StockHeldData'), 'StockHeldEvent'],
  ['stock.released', StockEventData(ReleasedResponseDto, 'StockReleasedData'), 'StockReleasedEvent'],
  ['stock.counted', StockEventData(CountedResponseDto, 'StockCountedData'), 'StockCountedEvent'],
  ['stock.allocated', StockEventData(AllocatedResponseDto, 'StockAllocatedData'), 'StockAllocatedEvent'],
  ['stock.packed', StockEventData(PackedResponseDto, 'StockPackedData'), 'StockPackedEvent'],
  ['allocation.cancelled', StockEventData(AllocationCancelledResponseDto, 'AllocationCancelledData'), 'AllocationCancelledEvent'],
  ['allocation.expired', StockEventData(AllocationExpiredResponseDto, 'AllocationExpiredData', { byService: true }), 'AllocationExpiredEvent'],
  ['stock.expected', StockEventData(ExpectedResponseDto, 'StockExpectedData'), 'StockExpectedEvent'],
  ['expectation.shipped', StockEventData(ExpectationShippedResponseDto, 'ExpectationShippedData'), 'ExpectationShippedEvent'],
  ['expectation.cancelled', StockEventData(ExpectationCancelledResponseDto, 'ExpectationCancelledData'), 'ExpectationCancelledEvent'],
  ['item.created', ItemResponseDto, 'ItemCreatedEvent'],
  ['item.updated', ItemResponseDto, 'ItemUpdatedEvent'],
  ['item.discontinued', ItemResponseDto, 'ItemDiscontinuedEvent'],
];

/** GET /Events: the events after `after`, in seq order; `next` is the after of the next request. */
@ApiSchema({ name: 'EventPage' })
@ApiExtraModels(...EVENTS.map(([type, data, name]) => EventOf(type, data, name)))
export class EventPageResponseDto implements EventPage {
  @ApiProperty({ type: 'array', items: { oneOf: EVENTS.map(([, , name]) => ({ $ref: `#/components/schemas/${name}` })) } }) value: EventResponseDto[];
  @ApiInteger({ description: 'The seq of the last event sent, or after when none was: the after of the next request' }) next: number;
  @ApiBoolean() hasMore: boolean;
}

/** The feed of committed changes (EXTENSIONS "Events"). */
@ApiTags('Events')
@Controller('Events')
export class EventsController {
  constructor(
    private readonly events: EventsService,
    private readonly sequencer: EventSequencer,
    // Optional only for the admin CLI, which loads this module without HTTP (and so without the HTTP logger).
    @Optional() private readonly logger?: AppLogger,
  ) {}

  @Get()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, "Events after a seq, in commit order: stock changes in the caller's warehouses, every item change")
  @ApiAnswer(HttpStatus.OK, EventPageResponseDto)
  // The page comes as its JSON text in pieces (EventsService.pageText), sent with the Content-Type res.json() would set.
  async page(@CurrentCaller() caller: Caller, @Query() query: EventQueryDto, @ReadConsistency() consistency: Consistency, @Req() req: Request): Promise<StreamableFile> {
    // Read your writes (on the primary): first (at most CATCH_UP_MS) the publishing turn of what this instance has committed so far.
    await this.sequencer.caughtUp();
    const page = await this.events.pageText(caller, query, consistency);
    return jsonTextFile(page.pieces, 'event page', this.logger!.log.child({ reqId: req.context.id }), () => ({ events: page.written() }));
  }
}
