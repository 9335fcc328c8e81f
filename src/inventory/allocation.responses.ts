import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiDateTime, ApiDecimal, ApiEnum, ApiInteger, ApiString } from '../http/openapi-decorators.js';
import { PageOf } from '../pagination/page.responses.js';
import { type Allocation, DOCUMENT_STATES, type DocumentState } from './documents.entities.js';

/** EXTENSIONS "Every stock state the spec names": an allocation, its fields in the contract's order. */
@ApiSchema({ name: 'Allocation', description: 'Units of an item in a warehouse promised to an order line (extension)' })
export class AllocationResponseDto {
  @ApiInteger() id: number;
  @ApiString({ description: "The item's shortID" }) itemID: string;
  @ApiInteger() partNo: number;
  @ApiInteger() wid: number;
  @ApiString({ description: 'The order line' }) reference: string;
  @ApiDecimal() units: number;
  @ApiDecimal() packed: number;
  @ApiDecimal() shipped: number;
  @ApiEnum(DOCUMENT_STATES, { description: 'open while units are left to ship; done once shipped; cancelled' }) state: DocumentState;
  @ApiDateTime({ nullable: true }) expiresAt: string | null;
  @ApiDateTime() created: string;
  @ApiDateTime() modified: string;
}

export function toAllocationResponse(a: Allocation, shortID: string): AllocationResponseDto {
  return {
    id: a.id,
    itemID: shortID,
    partNo: a.partNo,
    wid: a.wID,
    reference: a.reference,
    units: a.units,
    packed: a.packed,
    shipped: a.shipped,
    state: a.state,
    expiresAt: a.expiresAt ? a.expiresAt.toISOString() : null,
    created: a.created.toISOString(),
    modified: a.modified.toISOString(),
  };
}

/** POST /Inventory/Allocate. */
@ApiSchema({ name: 'Allocated' })
export class AllocatedResponseDto {
  @ApiEnum(['allocated']) status: 'allocated';
  @ApiProperty({ type: AllocationResponseDto }) allocation: AllocationResponseDto;
}

/** POST /Inventory/Allocations/{id}/Pack. */
@ApiSchema({ name: 'Packed' })
export class PackedResponseDto {
  @ApiEnum(['packed']) status: 'packed';
  @ApiProperty({ type: AllocationResponseDto }) allocation: AllocationResponseDto;
}

/** POST /Inventory/Allocations/{id}/Cancel. */
@ApiSchema({ name: 'AllocationCancelled' })
export class AllocationCancelledResponseDto {
  @ApiEnum(['cancelled']) status: 'cancelled';
  @ApiProperty({ type: AllocationResponseDto }) allocation: AllocationResponseDto;
}

/** The expiry of an allocation (no route: the start of its event's data). */
@ApiSchema({ name: 'AllocationExpired' })
export class AllocationExpiredResponseDto {
  @ApiEnum(['expired']) status: 'expired';
  @ApiProperty({ type: AllocationResponseDto }) allocation: AllocationResponseDto;
}

@ApiSchema({ name: 'AllocationPage' })
export class AllocationPageResponseDto extends PageOf(AllocationResponseDto) {}
