import { Controller, Get, Header, HttpStatus, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Caller } from '../auth/caller.js';
import { CurrentCaller, RequirePermission } from '../auth/guards.js';
import { SecurityId } from '../auth/security-id.js';
import { ApiAnswer } from '../http/openapi-decorators.js';
import { ListRead, ReadConsistency } from '../http/consistency.js';
import type { Consistency } from '../database/list-reads.js';
import { EventQueryDto } from './events.dto.js';
import { EventPageResponseDto } from './events.responses.js';
import { EventsService } from './events.service.js';
import { EventSequencer } from './sequencer.js';

/** The feed of committed changes (EXTENSIONS "Events"). */
@ApiTags('Events')
@Controller('Events')
export class EventsController {
  constructor(
    private readonly events: EventsService,
    private readonly sequencer: EventSequencer,
  ) {}

  @Get()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, "Events after a seq, in commit order: stock changes in the caller's warehouses, every item change")
  @ApiAnswer(HttpStatus.OK, EventPageResponseDto)
  // The page comes as its JSON text (EventsService.pageJson), sent with the header res.json() would set.
  @Header('Content-Type', 'application/json; charset=utf-8')
  async page(@CurrentCaller() caller: Caller, @Query() query: EventQueryDto, @ReadConsistency() consistency: Consistency): Promise<string> {
    // Read your writes (on the primary): first (at most CATCH_UP_MS) the publishing turn of what this instance has committed so far.
    await this.sequencer.caughtUp();
    return this.events.pageJson(caller, query, consistency);
  }
}
