import { Controller, Get, HttpStatus, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Caller } from '../auth/caller.js';
import { CurrentCaller, RequirePermission } from '../auth/guards.js';
import { SecurityId } from '../auth/security-id.js';
import { ApiAnswer } from '../http/openapi-decorators.js';
import { EventQueryDto } from './events.dto.js';
import { EventPageResponseDto } from './events.responses.js';
import { EventsService } from './events.service.js';

/** The feed of committed changes (EXTENSIONS "Events"). */
@ApiTags('Events')
@Controller('Events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequirePermission(SecurityId.ItemMasterList, "Events after a seq, in commit order: stock changes in the caller's warehouses, every item change")
  @ApiAnswer(HttpStatus.OK, EventPageResponseDto)
  page(@CurrentCaller() caller: Caller, @Query() query: EventQueryDto): Promise<EventPageResponseDto> {
    return this.events.page(caller, query);
  }
}
