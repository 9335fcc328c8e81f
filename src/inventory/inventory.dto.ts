import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Allow, IsBoolean, IsDate, IsOptional } from 'class-validator';
import { toIsoDate } from '../http/datetime.js';
import { IsDecimal4, IsIdentifier, IsInt32, IsShortId, IsText } from '../http/validators.js';
import { PageQueryDto } from '../pagination/page-query.dto.js';

/** Fields every inventory write shares. */
class InventoryWriteDto {
  @ApiProperty({ description: 'shortID of the item' })
  @IsShortId('itemID')
  itemID: string;

  @ApiProperty({ description: 'Warehouse ID' })
  @IsInt32(1)
  wid: number;

  @ApiPropertyOptional() @IsOptional() @IsIdentifier(64) serial?: string;
  @ApiPropertyOptional() @IsOptional() @IsIdentifier(64) serial2?: string;
  @ApiPropertyOptional() @IsOptional() @IsIdentifier(64) rfidTag?: string;
  @ApiPropertyOptional({ description: 'External reference, e.g. a purchase order number' }) @IsOptional() @IsText(100) reference?: string;
}

export class ReceiveDto extends InventoryWriteDto {
  @ApiProperty({ description: 'Units received; > 0, at most 4 decimal places' })
  @IsDecimal4({ greaterThan: 0 })
  units: number;

  @ApiProperty() @IsInt32() reasonCode: number;
  @ApiPropertyOptional({ description: 'Bin/location' }) @IsOptional() @IsIdentifier(64) spot?: string;
  @ApiPropertyOptional() @IsOptional() @IsText(255) remark?: string;
  @ApiPropertyOptional() @IsOptional() @IsDecimal4({ min: 0 }) netWeight?: number;
  @ApiPropertyOptional() @IsOptional() @IsDecimal4({ min: 0 }) grossWeight?: number;
  @ApiPropertyOptional({ description: 'Unit cost' }) @IsOptional() @IsDecimal4({ min: 0 }) price?: number;

  @ApiPropertyOptional({ type: String, format: 'date-time' })
  @IsOptional()
  @Transform(toIsoDate)
  @IsDate({ message: 'expires must be an ISO 8601 datetime' })
  expires?: Date;

  @ApiPropertyOptional({ description: 'Supplier ID' }) @IsOptional() @IsInt32() supplier?: number;
  @ApiPropertyOptional({ description: 'Purchase order line' }) @IsOptional() @IsInt32() line?: number;
  @ApiPropertyOptional({ description: 'Job/project ID' }) @IsOptional() @IsInt32() jobid?: number;

  @ApiPropertyOptional({ description: 'Put the new lot on hold (default false)' })
  @IsOptional()
  @IsBoolean({ message: 'hold must be true or false' })
  hold?: boolean;

  @ApiPropertyOptional({ description: 'Extension: an open expectation of this item and warehouse the units are received against (what is left on it falls by them)' })
  @IsOptional()
  @IsInt32(1)
  expectationId?: number;
}

export class IssueDto extends InventoryWriteDto {
  @ApiProperty({ description: 'Units issued; > 0, at most 4 decimal places' })
  @IsDecimal4({ greaterThan: 0 })
  units: number;

  @ApiProperty() @IsInt32() reasonCode: number;
  @ApiPropertyOptional({ description: 'Bin to issue from' }) @IsOptional() @IsIdentifier(64) spot?: string;
  @ApiPropertyOptional() @IsOptional() @IsText(255) remark?: string;
  @ApiPropertyOptional() @IsOptional() @IsDecimal4({ min: 0 }) netWeight?: number;
  @ApiPropertyOptional({ description: 'Destination customer ID' }) @IsOptional() @IsInt32() shipto?: number;
  @ApiPropertyOptional({ description: 'Production/assembly ID' }) @IsOptional() @IsText(64) prodID?: string;
  @ApiPropertyOptional({ description: 'A specific lot to issue from' }) @IsOptional() @IsInt32(1) recno?: number;
  @ApiPropertyOptional({ description: 'Order line' }) @IsOptional() @IsInt32() line?: number;

  @ApiPropertyOptional({ description: 'Extension: an open allocation of this item and warehouse to ship from (packed units first); without it only available units are issued' })
  @IsOptional()
  @IsInt32(1)
  allocationId?: number;
}

/** POST /Inventory/Hold and /Release: the Issue body's selectors; without `units`, every matching lot. */
export class HoldDto extends InventoryWriteDto {
  @ApiPropertyOptional({ description: 'Units to hold or release, oldest lots first, the last one split if need be; > 0, at most 4 decimal places. Without it, every matching lot' })
  @IsOptional()
  @IsDecimal4({ greaterThan: 0 })
  units?: number;

  @ApiProperty() @IsInt32() reasonCode: number;
  @ApiPropertyOptional({ description: 'Only lots in this bin' }) @IsOptional() @IsIdentifier(64) spot?: string;
  @ApiPropertyOptional() @IsOptional() @IsText(255) remark?: string;
  @ApiPropertyOptional({ description: 'A specific lot' }) @IsOptional() @IsInt32(1) recno?: number;
}

/** POST /Inventory/Count: the in-stock units of the matching lots (held ones included) become `counted`. */
export class CountDto extends InventoryWriteDto {
  @ApiProperty({ description: 'Units counted; ≥ 0, at most 4 decimal places' })
  @IsDecimal4({ min: 0 })
  counted: number;

  @ApiPropertyOptional({ description: 'Compare-and-set: the units the client believes are on hand; if they differ now, 409 and nothing changes' })
  @IsOptional()
  @IsDecimal4({ min: 0 })
  expected?: number;

  @ApiProperty() @IsInt32() reasonCode: number;
  @ApiPropertyOptional({ description: 'Only lots in this bin; a count above what is on hand is received here' }) @IsOptional() @IsIdentifier(64) spot?: string;
  @ApiPropertyOptional() @IsOptional() @IsText(255) remark?: string;
}

/** POST /Inventory/Batch: checked operation by operation by BatchService (each body as its own endpoint's). */
export class BatchDto {
  @ApiProperty({
    description:
      '1 to 250 operations, run in order, all or nothing: each `{op, …}` with the body of its own endpoint; pack, cancelAllocation, shipExpectation and cancelExpectation name their document as `allocationId` or `expectationId` in the body',
    type: 'array',
    minItems: 1,
    maxItems: 250,
    items: {
      type: 'object',
      required: ['op'],
      properties: {
        op: { type: 'string', enum: ['receive', 'issue', 'move', 'hold', 'release', 'count', 'allocate', 'pack', 'cancelAllocation', 'expect', 'shipExpectation', 'cancelExpectation'] },
      },
      additionalProperties: true,
    },
  })
  @Allow()
  operations: unknown;
}

export class MoveDto extends InventoryWriteDto {
  @ApiProperty({ description: 'Units moved; > 0, at most 4 decimal places' })
  @IsDecimal4({ greaterThan: 0 })
  units: number;

  @ApiPropertyOptional({ description: 'Source bin' }) @IsOptional() @IsIdentifier(64) fromSpot?: string;
  @ApiPropertyOptional({ description: 'Destination bin (default: the source bin)' }) @IsOptional() @IsIdentifier(64) toSpot?: string;
  @ApiPropertyOptional({ description: 'Destination warehouse (default: wid)' }) @IsOptional() @IsInt32(1) shipToWid?: number;
  @ApiPropertyOptional() @IsOptional() @IsText(64) transitSlip?: string;
  @ApiPropertyOptional({ description: 'A specific lot to move' }) @IsOptional() @IsInt32(1) recno?: number;

  @ApiPropertyOptional({ description: 'Only lots received on this UTC day (a time, if given, only names the day)', type: String })
  @IsOptional()
  @Transform(toIsoDate)
  @IsDate({ message: 'received must be an ISO 8601 date or datetime' })
  received?: Date;
}

export class LotQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only lots of this item (shortID)' })
  @IsOptional()
  @IsShortId('itemID')
  itemID?: string;
}
