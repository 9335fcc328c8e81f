import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsOptional, MinLength, ValidateBy } from 'class-validator';
import { toIsoDate } from '../http/datetime.js';
import { IsDecimal4, IsIdentifier, IsInt32, IsShortId } from '../http/validators.js';
import { DocumentQueryDto } from './document-query.dto.js';

/** EXTENSIONS: an allocation expires at the latest this long after it is made. */
export const MAX_EXPIRY_MS = 90 * 24 * 3600 * 1000;

/** The order line a document is for: 1–64 characters, stored and searched exactly, so no edge spaces (DECISIONS "General", identifiers). */
export function IsReference() {
  return applyDecorators(IsIdentifier(64), MinLength(1, { message: '$property must be 1 to 64 characters' }));
}

/** POST /Inventory/Allocate (EXTENSIONS "Every stock state the spec names"). */
export class AllocateDto {
  @ApiProperty({ description: 'shortID of the item' })
  @IsShortId('itemID')
  itemID: string;

  @ApiProperty({ description: 'Warehouse ID' })
  @IsInt32(1)
  wid: number;

  @ApiProperty({ description: 'Units allocated: at most what is available; > 0, at most 4 decimal places' })
  @IsDecimal4({ greaterThan: 0 })
  units: number;

  @ApiProperty({ description: 'The order line the units are for, 1 to 64 characters (searchable: GET /Inventory/Allocations?reference=)', minLength: 1, maxLength: 64 })
  @IsReference()
  reference: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'When what is still unpacked is released, if not shipped by then: in the future, at most 90 days ahead' })
  @IsOptional()
  @Transform(toIsoDate)
  @IsDate({ message: 'expiresAt must be an ISO 8601 datetime' })
  @ValidateBy({
    name: 'expiresAhead',
    validator: {
      validate: (value: unknown) => value instanceof Date && value.getTime() > Date.now() && value.getTime() <= Date.now() + MAX_EXPIRY_MS,
      defaultMessage: () => 'expiresAt must be in the future and at most 90 days ahead',
    },
  })
  expiresAt?: Date;
}

/** POST /Inventory/Allocations/{id}/Pack. */
export class PackDto {
  @ApiProperty({ description: 'Units packed: at most what is committed on the allocation and not packed; > 0, at most 4 decimal places' })
  @IsDecimal4({ greaterThan: 0 })
  units: number;
}

/** Batch op `pack`: Pack's body and the allocation's id. */
export class PackOperationDto extends PackDto {
  @ApiProperty({ description: 'The allocation packed' })
  @IsInt32(1)
  allocationId: number;
}

/** Batch op `cancelAllocation`. */
export class AllocationOperationDto {
  @ApiProperty({ description: 'The allocation' })
  @IsInt32(1)
  allocationId: number;
}

/** GET /Inventory/Allocations[/{wid}]: the page and its filters. */
export class AllocationQueryDto extends DocumentQueryDto('allocations', 'order line') {}
