import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { type Caller, FORBIDDEN } from '../auth/caller.js';
import { CurrentCaller, RequirePermission } from '../auth/guards.js';
import { SecurityId } from '../auth/security-id.js';
import type { Consistency } from '../database/list-reads.js';
import { ListRead, ReadConsistency } from '../http/consistency.js';
import { ApiAnswer, ApiFailures } from '../http/openapi-decorators.js';
import { Idempotent } from '../http/idempotent.js';
import { PageHeaders } from '../pagination/page-headers.interceptor.js';
import { DOCUMENT_ID, DOCUMENT_WID, documentFailures, ONE_WAREHOUSE, WRITE_CONFLICT } from './allocations.controller.js';
import { DocumentQueries } from './document-queries.service.js';
import { ExpectationQueryDto, ExpectDto } from './expectation.dto.js';
import { ExpectationCancelledResponseDto, ExpectationPageResponseDto, ExpectationResponseDto, ExpectationShippedResponseDto, ExpectedResponseDto } from './expectation.responses.js';
import { ExpectationsService } from './expectations.service.js';
import { InventoryQueries } from './inventory-queries.service.js';
import { documentId } from './stock-documents.js';

/** What Ship and Cancel refuse alike: no such expectation (or one of another warehouse), or one no longer open. */
const CHANGE_FAILURES = documentFailures('expectation', `the expectation is done or cancelled (expectation_closed); ${WRITE_CONFLICT}`);

/**
 * Expectations, the inbound stock document (EXTENSIONS "Every stock state
 * the spec names"). Registered before InventoryController, whose GET :wid
 * would otherwise take GET /Inventory/Expectations.
 */
@ApiTags('Inventory')
@Controller('Inventory')
export class ExpectationsController {
  constructor(
    private readonly expectations: ExpectationsService,
    private readonly documents: DocumentQueries,
    private readonly queries: InventoryQueries,
  ) {}

  @Post('Expect')
  @Idempotent()
  @RequirePermission(SecurityId.PositiveAdjustment, 'Extension: expect units for a purchase order line (onOrder, or aSN when shipped, rises); 201 {status, expectation}')
  @ApiAnswer(HttpStatus.CREATED, ExpectedResponseDto)
  @ApiFailures({ forbidden: `"${FORBIDDEN.scope}"`, conflict: `the item is discontinued; what is expected in the warehouse would pass 99999999999.9999 units; ${WRITE_CONFLICT}` })
  expect(@CurrentCaller() caller: Caller, @Body() dto: ExpectDto): Promise<ExpectedResponseDto> {
    return this.expectations.expect(caller, dto);
  }

  @Post('Expectations/:id/Ship')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(SecurityId.PositiveAdjustment, 'Extension: the units of an expectation are shipped (in transit): what is left moves from onOrder to aSN; 200 {status, expectation}')
  @ApiParam(DOCUMENT_ID)
  @ApiAnswer(HttpStatus.OK, ExpectationShippedResponseDto)
  @ApiFailures(CHANGE_FAILURES)
  ship(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<ExpectationShippedResponseDto> {
    return this.expectations.ship(caller, documentId(id, 'expectation'));
  }

  @Post('Expectations/:id/Cancel')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(SecurityId.PositiveAdjustment, 'Extension: cancel an expectation: what is left on it is no longer expected; 200 {status, expectation}')
  @ApiParam(DOCUMENT_ID)
  @ApiAnswer(HttpStatus.OK, ExpectationCancelledResponseDto)
  @ApiFailures(CHANGE_FAILURES)
  cancel(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<ExpectationCancelledResponseDto> {
    return this.expectations.cancel(caller, documentId(id, 'expectation'));
  }

  @Get('Expectations')
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, "Extension: expectations in the caller's warehouses, by id")
  @ApiAnswer(HttpStatus.OK, ExpectationPageResponseDto)
  list(@CurrentCaller() caller: Caller, @Query() query: ExpectationQueryDto, @ReadConsistency() consistency: Consistency): Promise<ExpectationPageResponseDto> {
    return this.documents.expectationPage(this.queries.scope(caller), query, consistency);
  }

  @Get('Expectations/:wid')
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, 'Extension: expectations in one warehouse, by id')
  @ApiParam(DOCUMENT_WID)
  @ApiAnswer(HttpStatus.OK, ExpectationPageResponseDto)
  @ApiFailures(ONE_WAREHOUSE)
  listIn(@CurrentCaller() caller: Caller, @Param('wid') wid: string, @Query() query: ExpectationQueryDto, @ReadConsistency() consistency: Consistency): Promise<ExpectationPageResponseDto> {
    return this.documents.expectationPage(this.queries.scope(caller, wid), query, consistency);
  }

  @Get('Expectation/:id')
  @RequirePermission(SecurityId.ItemMasterList, 'Extension: one expectation')
  @ApiParam(DOCUMENT_ID)
  @ApiAnswer(HttpStatus.OK, ExpectationResponseDto)
  @ApiFailures(documentFailures('expectation'))
  one(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<ExpectationResponseDto> {
    return this.documents.expectation(caller, id);
  }
}
