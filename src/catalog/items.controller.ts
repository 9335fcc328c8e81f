import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Optional, Param, Post, Put, Query, Req, Res, type StreamableFile } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Caller } from '../auth/caller.js';
import { CurrentCaller, RequirePermission } from '../auth/guards.js';
import { SecurityId } from '../auth/security-id.js';
import { PageHeaders } from '../pagination/page-headers.interceptor.js';
import { PageQueryDto } from '../pagination/page-query.dto.js';
import { CreateItemDto, ItemQueryDto, UpdateItemDto } from './item.dto.js';
import {
  ItemCreatedResponseDto,
  ItemDiscontinuedResponseDto,
  ItemPageResponseDto,
  ItemResponseDto,
  ItemUpdatedResponseDto,
  toItemResponse,
  withStatus,
} from './item.responses.js';
import { Idempotent } from '../http/idempotent.js';
import { ApiAnswer, ApiFailures, oneOf } from '../http/openapi-decorators.js';
import { AppLogger } from '../http/logger.js';
import { jsonArrayFile } from '../http/json-array.js';
import { UnitOfWork } from '../http/unit-of-work.js';
import { ListRead, ReadConsistency } from '../http/consistency.js';
import type { Consistency } from '../database/list-reads.js';
import { ItemsService } from './items.service.js';

/** The item catalog (spec "Items"; DECISIONS "Items"). */
@ApiTags('Items')
@Controller('Item')
export class ItemsController {
  constructor(
    private readonly items: ItemsService,
    // Optional only for the admin CLI, which loads this module without HTTP (and so without the HTTP logger).
    @Optional() private readonly logger?: AppLogger,
  ) {}

  @Get()
  @PageHeaders()
  @ListRead()
  @RequirePermission(
    SecurityId.ItemMasterList,
    'List active items by shortID (paginated); with key (and type id|alias) one item; with Category a flat array',
  )
  @ApiAnswer(HttpStatus.OK, oneOf([ItemPageResponseDto, ItemResponseDto, [ItemResponseDto]]), 'A page of items; with key, one item; with Category, a flat array')
  @ApiFailures({ not_found: 'with key: no item has that shortID (type=id) or alias (type=alias)' })
  async find(@Query() query: ItemQueryDto, @ReadConsistency() consistency: Consistency, @Req() req: Request): Promise<ItemPageResponseDto | ItemResponseDto | StreamableFile> {
    if (query.key !== undefined) {
      return toItemResponse(await (query.type === 'alias' ? this.items.byAlias(query.key) : this.items.byShortId(query.key)));
    }
    if (query.category !== undefined) {
      // Streamed: a category may hold more items than the service could hold as one answer.
      return jsonArrayFile(await this.items.inCategory(query.category, consistency), toItemResponse, this.logger!.log.child({ reqId: req.context.id }));
    }
    return (await this.items.list(query, false, consistency)).map(toItemResponse);
  }

  @Get('All')
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, 'List all items, discontinued included (paginated)')
  @ApiAnswer(HttpStatus.OK, ItemPageResponseDto)
  async all(@Query() query: PageQueryDto, @ReadConsistency() consistency: Consistency): Promise<ItemPageResponseDto> {
    return (await this.items.list(query, true, consistency)).map(toItemResponse);
  }

  // The get route takes a partNo here and the delete route a shortID: one parameter name, typed per operation, so that
  // the document has one path (`/Item/{item}`), as clients see it, not two that differ only by a name.
  @Get(':item')
  @RequirePermission(SecurityId.ItemMasterList, 'Get one item by part number')
  @ApiParam({ name: 'item', description: "The item's partNo", schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } })
  @ApiAnswer(HttpStatus.OK, ItemResponseDto)
  @ApiFailures({ not_found: 'no item has that partNo (or it is not a whole number from 1 to 2147483647)' })
  async one(@Param('item') partNo: string): Promise<ItemResponseDto> {
    return toItemResponse(await this.items.byPartNo(partNo));
  }

  @Post()
  @Idempotent()
  @RequirePermission(SecurityId.ModifyItemMaster, 'Create an item; 201 with the full item and status "created"')
  @ApiAnswer(HttpStatus.CREATED, ItemCreatedResponseDto)
  @ApiFailures({ conflict: 'an item with that shortID already exists (regardless of case); or too much concurrent change, retry' })
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateItemDto, @Res({ passthrough: true }) res: Response): Promise<ItemCreatedResponseDto> {
    const item = await this.items.create(caller, dto);
    res.location(`/api/v1/Item/${item.partNo}`);
    return withStatus(item, 'created');
  }

  @Put()
  @UnitOfWork()
  @RequirePermission(SecurityId.ModifyItemMaster, 'Update an item; omitted fields stay unchanged; discontinued:false reactivates')
  @ApiAnswer(HttpStatus.OK, ItemUpdatedResponseDto)
  @ApiFailures({ not_found: 'no item has that shortID' })
  async update(@Body() dto: UpdateItemDto): Promise<ItemUpdatedResponseDto> {
    const item = await this.items.update(dto);
    return withStatus(item, 'updated');
  }

  @Delete(':item')
  @UnitOfWork()
  @HttpCode(200)
  @RequirePermission(SecurityId.ModifyItemMaster, 'Discontinue an item (logical deletion; the same answer when repeated)')
  @ApiParam({ name: 'item', description: "The item's shortID (regardless of case)", schema: { type: 'string', minLength: 1, maxLength: 64 } })
  @ApiAnswer(HttpStatus.OK, ItemDiscontinuedResponseDto)
  @ApiFailures({ not_found: 'no item has that shortID' })
  async discontinue(@Param('item') shortId: string): Promise<ItemDiscontinuedResponseDto> {
    const item = await this.items.discontinue(shortId);
    return { shortID: item.shortID, status: 'discontinued' as const };
  }
}

