import { Controller, Get, HttpStatus, Optional, Query, Req, type StreamableFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Caller } from '../auth/caller.js';
import { CurrentCaller, RequirePermission } from '../auth/guards.js';
import { SecurityId } from '../auth/security-id.js';
import { ApiAnswer } from '../http/openapi-decorators.js';
import { jsonTextFile } from '../http/json-array.js';
import { AppLogger } from '../http/logger.js';
import { ListRead, ReadConsistency } from '../http/consistency.js';
import type { Consistency } from '../database/list-reads.js';
import { EventQueryDto } from './events.dto.js';
import { EVENT_PAGE } from './events.responses.js';
import { EventsService } from './events.service.js';
import { EventSequencer } from './sequencer.js';

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
  // The page's schema names the answers of the features that publish events: the edge adds it (src/openapi.ts).
  @ApiAnswer(HttpStatus.OK, EVENT_PAGE)
  // The page comes as its JSON text in pieces (EventsService.pageText), sent with the Content-Type res.json() would set.
  async page(@CurrentCaller() caller: Caller, @Query() query: EventQueryDto, @ReadConsistency() consistency: Consistency, @Req() req: Request): Promise<StreamableFile> {
    // Read your writes (on the primary): first (at most CATCH_UP_MS) the publishing turn of what this instance has committed so far.
    await this.sequencer.caughtUp();
    const page = await this.events.pageText(caller, query, consistency);
    return jsonTextFile(page.pieces, 'event page', this.logger!.log.child({ reqId: req.context.id }), () => ({ events: page.written() }));
  }
}
