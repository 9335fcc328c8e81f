import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { type Caller, FORBIDDEN } from '../auth/caller.js';
import { CurrentCaller, RequirePermission } from '../auth/guards.js';
import { SecurityId } from '../auth/security-id.js';
import { ApiAnswer, ApiFailures } from '../http/openapi-decorators.js';
import { PageHeaders } from '../pagination/page-headers.interceptor.js';
import { ListRead, ReadConsistency } from '../http/consistency.js';
import type { Consistency } from '../database/list-reads.js';
import { PageQueryDto } from '../pagination/page-query.dto.js';
import { Idempotent, RequestKey } from '../http/idempotent.js';
import { BatchDto, CountDto, HoldDto, IssueDto, LotQueryDto, MoveDto, ReceiveDto } from './inventory.dto.js';
import {
  BatchResponseDto,
  CountedResponseDto,
  HeldResponseDto,
  IssuedResponseDto,
  LotPageResponseDto,
  MovedResponseDto,
  ReceivedResponseDto,
  ReleasedResponseDto,
  StockLevelPageResponseDto,
  TransactionPageResponseDto,
} from './inventory.responses.js';
import { InventoryQueries } from './inventory-queries.service.js';
import { BatchService } from './batch.service.js';
import { CountService } from './count.service.js';
import { InventoryService } from './inventory.service.js';

/** The `wid` path parameter, and what a list of one warehouse can refuse. */
const WID = { name: 'wid', description: 'Warehouse ID', schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } } as const;
const ONE_WAREHOUSE = { forbidden: `"${FORBIDDEN.scope}" (whether or not the warehouse exists)`, not_found: 'wid is not a whole number from 1 to 2147483647' };
/** What every Receive, Move and Issue can refuse besides its own conflicts. */
const WRITE_CONFLICT = 'too much concurrent change on the same stock (retry)';

/** Lots, stock levels and inventory transactions (spec "Inventory"; DECISIONS "Inventory"). */
@ApiTags('Inventory')
@Controller('Inventory')
export class InventoryController {
  constructor(
    private readonly inventory: InventoryService,
    private readonly queries: InventoryQueries,
    private readonly counts: CountService,
    private readonly batches: BatchService,
  ) {}

  @Get()
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, "List lots in the caller's warehouses, newest first")
  @ApiAnswer(HttpStatus.OK, LotPageResponseDto)
  lots(@CurrentCaller() caller: Caller, @Query() query: LotQueryDto, @ReadConsistency() consistency: Consistency): Promise<LotPageResponseDto> {
    return this.queries.lotPage(this.queries.scope(caller), query, consistency);
  }

  @Get('StockLevels')
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, "Stock levels per item over the caller's warehouses")
  @ApiAnswer(HttpStatus.OK, StockLevelPageResponseDto)
  stockLevels(@CurrentCaller() caller: Caller, @Query() query: PageQueryDto, @ReadConsistency() consistency: Consistency): Promise<StockLevelPageResponseDto> {
    return this.queries.stockPage(this.queries.scope(caller), query, consistency);
  }

  @Get('StockLevels/:wid')
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, 'Stock levels per item in one warehouse')
  @ApiParam(WID)
  @ApiAnswer(HttpStatus.OK, StockLevelPageResponseDto)
  @ApiFailures(ONE_WAREHOUSE)
  stockLevelsIn(@CurrentCaller() caller: Caller, @Param('wid') wid: string, @Query() query: PageQueryDto, @ReadConsistency() consistency: Consistency): Promise<StockLevelPageResponseDto> {
    return this.queries.stockPage(this.queries.scope(caller, wid), query, consistency);
  }

  @Get('Transactions')
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, "Extension: the inventory ledger (one row per lot touched) in the caller's warehouses")
  @ApiAnswer(HttpStatus.OK, TransactionPageResponseDto)
  transactions(@CurrentCaller() caller: Caller, @Query() query: LotQueryDto, @ReadConsistency() consistency: Consistency): Promise<TransactionPageResponseDto> {
    return this.queries.ledgerPage(this.queries.scope(caller), query, consistency);
  }

  @Get(':wid')
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, 'List lots in one warehouse, newest first')
  @ApiParam(WID)
  @ApiAnswer(HttpStatus.OK, LotPageResponseDto)
  @ApiFailures(ONE_WAREHOUSE)
  lotsIn(@CurrentCaller() caller: Caller, @Param('wid') wid: string, @Query() query: LotQueryDto, @ReadConsistency() consistency: Consistency): Promise<LotPageResponseDto> {
    return this.queries.lotPage(this.queries.scope(caller, wid), query, consistency);
  }

  @Post('Receive')
  @Idempotent()
  @RequirePermission(SecurityId.PositiveAdjustment, 'Receive: a positive adjustment creating a new lot; 201 {status, recNo, lot}')
  @ApiAnswer(HttpStatus.CREATED, ReceivedResponseDto)
  @ApiFailures({
    forbidden: `"${FORBIDDEN.scope}"`,
    conflict: `the item is discontinued; the stock would pass 99999999999.9999 units; ${WRITE_CONFLICT}`,
  })
  receive(@CurrentCaller() caller: Caller, @Body() dto: ReceiveDto, @RequestKey() key: string | null): Promise<ReceivedResponseDto> {
    return this.inventory.receive(caller, dto, key);
  }

  @Post('Move')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(SecurityId.LocateMoveUnits, 'Move units between spots or warehouses, oldest lots first; 200 {status, units, lots}')
  @ApiAnswer(HttpStatus.OK, MovedResponseDto)
  @ApiFailures({
    forbidden: `"${FORBIDDEN.scope}" (wid or shipToWid)`,
    conflict: `insufficient stock: not enough units in the matching lots (requested and available named; nothing changes); ${WRITE_CONFLICT}`,
  })
  move(@CurrentCaller() caller: Caller, @Body() dto: MoveDto, @RequestKey() key: string | null): Promise<MovedResponseDto> {
    return this.inventory.move(caller, dto, key);
  }

  @Post('Issue')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(SecurityId.NegativeAdjustment, 'Issue: a negative adjustment from in-stock, not-held lots, oldest first; 200 {status, units, lots}')
  @ApiAnswer(HttpStatus.OK, IssuedResponseDto)
  @ApiFailures({
    forbidden: `"${FORBIDDEN.scope}"`,
    conflict: `insufficient stock: not enough units in the matching lots (requested and available named; nothing changes); ${WRITE_CONFLICT}`,
  })
  issue(@CurrentCaller() caller: Caller, @Body() dto: IssueDto, @RequestKey() key: string | null): Promise<IssuedResponseDto> {
    return this.inventory.issue(caller, dto, key);
  }

  @Post('Hold')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(SecurityId.LocateMoveUnits, 'Extension: put matching in-stock lots on hold (all of them, or `units` oldest first); 200 {status, units, lots}')
  @ApiAnswer(HttpStatus.OK, HeldResponseDto)
  @ApiFailures({
    forbidden: `"${FORBIDDEN.scope}"`,
    conflict: `not enough matching units that are not held (requested and available named; also when nothing matches; nothing changes); ${WRITE_CONFLICT}`,
  })
  hold(@CurrentCaller() caller: Caller, @Body() dto: HoldDto, @RequestKey() key: string | null): Promise<HeldResponseDto> {
    return this.inventory.hold(caller, dto, true, key);
  }

  @Post('Release')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(SecurityId.LocateMoveUnits, 'Extension: release matching held lots (all of them, or `units` oldest first); 200 {status, units, lots}')
  @ApiAnswer(HttpStatus.OK, ReleasedResponseDto)
  @ApiFailures({
    forbidden: `"${FORBIDDEN.scope}"`,
    conflict: `not enough matching held units (requested and available named; also when nothing matches; nothing changes); ${WRITE_CONFLICT}`,
  })
  release(@CurrentCaller() caller: Caller, @Body() dto: HoldDto, @RequestKey() key: string | null): Promise<ReleasedResponseDto> {
    return this.inventory.hold(caller, dto, false, key);
  }

  @Post('Count')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(
    [SecurityId.PositiveAdjustment, SecurityId.NegativeAdjustment],
    'Extension: a stock-take: the matching lots (held included) become `counted` units, with `expected` as compare-and-set; 200 {status, before, counted, delta, lots}',
  )
  @ApiAnswer(HttpStatus.OK, CountedResponseDto)
  @ApiFailures({
    forbidden: `"${FORBIDDEN.scope}"; "${FORBIDDEN.permission}" when the count adds units without SecurityID 95, or takes units without 88`,
    conflict: `\`expected\` differs from the units on hand (named; nothing changes); more counted for a discontinued item; the stock would pass 99999999999.9999 units; ${WRITE_CONFLICT}`,
  })
  count(@CurrentCaller() caller: Caller, @Body() dto: CountDto, @RequestKey() key: string | null): Promise<CountedResponseDto> {
    return this.counts.count(caller, dto, key);
  }

  @Post('Batch')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(
    [SecurityId.PositiveAdjustment, SecurityId.NegativeAdjustment, SecurityId.LocateMoveUnits],
    "Extension: 1 to 250 operations (receive, issue, move, hold, release, count), each with its own endpoint's body, all or nothing in one transaction; 200 {status, results}",
  )
  @ApiAnswer(HttpStatus.OK, BatchResponseDto)
  @ApiFailures({
    validation_error: 'operations is not an array of 1 to 250 objects, an op is unknown, or an operation\'s body fails its endpoint\'s validation (details keyed operations[<i>].<field>)',
    forbidden: `an operation the client's SecurityIDs do not allow ("${FORBIDDEN.permission} (operations[<i>])"), or a warehouse out of scope`,
    conflict: `an operation's own conflict (insufficient stock, expected count, discontinued item, stock bound), its message ending "(operations[<i>])"; ${WRITE_CONFLICT}`,
  })
  batch(@CurrentCaller() caller: Caller, @Body() dto: BatchDto, @RequestKey() key: string | null): Promise<BatchResponseDto> {
    return this.batches.run(caller, dto, key);
  }
}
