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
import { AllocateDto, AllocationQueryDto, PackDto } from './allocation.dto.js';
import { AllocatedResponseDto, AllocationCancelledResponseDto, AllocationPageResponseDto, AllocationResponseDto, PackedResponseDto } from './allocation.responses.js';
import { AllocationsService } from './allocations.service.js';
import { DocumentQueries } from './document-queries.service.js';
import { InventoryQueries } from './inventory-queries.service.js';
import { documentId } from './stock-documents.js';

/** A document's id in a path, and a list of one warehouse (as for lots). */
export const DOCUMENT_ID = { name: 'id', schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } } as const;
export const DOCUMENT_WID = { name: 'wid', description: 'Warehouse ID', schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } } as const;
export const ONE_WAREHOUSE = { forbidden: `"${FORBIDDEN.scope}" (whether or not the warehouse exists)`, not_found: 'wid is not a whole number from 1 to 2147483647' };
export const WRITE_CONFLICT = 'too much concurrent change on the same stock (retry)';

/** What a route on one document refuses: no such document, or one of another warehouse (the same answer), and `conflict` where it changes the document. */
export function documentFailures(kind: 'allocation' | 'expectation', conflict?: string) {
  return { not_found: `no such ${kind}, or one of a warehouse outside the caller's scope (the same answer)`, ...(conflict === undefined ? {} : { conflict }) };
}

/**
 * Allocations, the outbound stock document (EXTENSIONS "Every stock state the
 * spec names"). Registered before InventoryController, whose GET :wid would
 * otherwise take GET /Inventory/Allocations.
 */
@ApiTags('Inventory')
@Controller('Inventory')
export class AllocationsController {
  constructor(
    private readonly allocations: AllocationsService,
    private readonly documents: DocumentQueries,
    private readonly queries: InventoryQueries,
  ) {}

  @Post('Allocate')
  @Idempotent()
  @RequirePermission(SecurityId.NegativeAdjustment, 'Extension: allocate available units to an order line (committed rises); 201 {status, allocation}')
  @ApiAnswer(HttpStatus.CREATED, AllocatedResponseDto)
  @ApiFailures({ forbidden: `"${FORBIDDEN.scope}"`, conflict: `insufficient stock: more than is available (requested and available named; nothing changes); ${WRITE_CONFLICT}` })
  allocate(@CurrentCaller() caller: Caller, @Body() dto: AllocateDto): Promise<AllocatedResponseDto> {
    return this.allocations.allocate(caller, dto);
  }

  @Post('Allocations/:id/Pack')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(SecurityId.LocateMoveUnits, 'Extension: pack units of an allocation (from committed to packed); 200 {status, allocation}')
  @ApiParam(DOCUMENT_ID)
  @ApiAnswer(HttpStatus.OK, PackedResponseDto)
  @ApiFailures(documentFailures('allocation', `the allocation is done or cancelled (allocation_closed); more than is committed on it and not packed (insufficient_stock); ${WRITE_CONFLICT}`))
  pack(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() dto: PackDto): Promise<PackedResponseDto> {
    return this.allocations.pack(caller, documentId(id, 'allocation'), dto);
  }

  @Post('Allocations/:id/Cancel')
  @HttpCode(200)
  @Idempotent()
  @RequirePermission(SecurityId.NegativeAdjustment, 'Extension: cancel an allocation: what is left on it, committed and packed, is available again; 200 {status, allocation}')
  @ApiParam(DOCUMENT_ID)
  @ApiAnswer(HttpStatus.OK, AllocationCancelledResponseDto)
  @ApiFailures(documentFailures('allocation', `the allocation is done or cancelled (allocation_closed); ${WRITE_CONFLICT}`))
  cancel(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<AllocationCancelledResponseDto> {
    return this.allocations.cancel(caller, documentId(id, 'allocation'));
  }

  @Get('Allocations')
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, "Extension: allocations in the caller's warehouses, by id")
  @ApiAnswer(HttpStatus.OK, AllocationPageResponseDto)
  list(@CurrentCaller() caller: Caller, @Query() query: AllocationQueryDto, @ReadConsistency() consistency: Consistency): Promise<AllocationPageResponseDto> {
    return this.documents.allocationPage(this.queries.scope(caller), query, consistency);
  }

  @Get('Allocations/:wid')
  @PageHeaders()
  @ListRead()
  @RequirePermission(SecurityId.ItemMasterList, 'Extension: allocations in one warehouse, by id')
  @ApiParam(DOCUMENT_WID)
  @ApiAnswer(HttpStatus.OK, AllocationPageResponseDto)
  @ApiFailures(ONE_WAREHOUSE)
  listIn(@CurrentCaller() caller: Caller, @Param('wid') wid: string, @Query() query: AllocationQueryDto, @ReadConsistency() consistency: Consistency): Promise<AllocationPageResponseDto> {
    return this.documents.allocationPage(this.queries.scope(caller, wid), query, consistency);
  }

  @Get('Allocation/:id')
  @RequirePermission(SecurityId.ItemMasterList, 'Extension: one allocation')
  @ApiParam(DOCUMENT_ID)
  @ApiAnswer(HttpStatus.OK, AllocationResponseDto)
  @ApiFailures(documentFailures('allocation'))
  one(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<AllocationResponseDto> {
    return this.documents.allocation(caller, id);
  }
}
