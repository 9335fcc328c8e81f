import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsIn, IsOptional } from 'class-validator';
import { toIsoDate } from '../http/datetime.js';
import { IsDecimal4, IsInt32, IsShortId } from '../http/validators.js';
import { IsReference } from './allocation.dto.js';
import { DocumentQueryDto } from './document-query.dto.js';
import { EXPECTATION_STAGES, type ExpectationStage } from './documents.entities.js';

/** POST /Inventory/Expect (EXTENSIONS "Every stock state the spec names"). */
export class ExpectDto {
  @ApiProperty({ description: 'shortID of the item' })
  @IsShortId('itemID')
  itemID: string;

  @ApiProperty({ description: 'Warehouse ID' })
  @IsInt32(1)
  wid: number;

  @ApiProperty({ description: 'Units expected; > 0, at most 4 decimal places' })
  @IsDecimal4({ greaterThan: 0 })
  units: number;

  @ApiProperty({ description: 'The purchase order line, 1 to 64 characters (searchable: GET /Inventory/Expectations?reference=)', minLength: 1, maxLength: 64 })
  @IsReference()
  reference: string;

  @ApiPropertyOptional({ description: 'ordered (the default: counts in onOrder) or shipped (in transit: counts in aSN)', enum: EXPECTATION_STAGES })
  @IsOptional()
  @IsIn(EXPECTATION_STAGES, { message: `stage must be one of ${EXPECTATION_STAGES.join(', ')}` })
  stage?: ExpectationStage;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'When the units are due (any datetime; informational)' })
  @IsOptional()
  @Transform(toIsoDate)
  @IsDate({ message: 'due must be an ISO 8601 datetime' })
  due?: Date;
}

/** Batch ops `shipExpectation` and `cancelExpectation`. */
export class ExpectationOperationDto {
  @ApiProperty({ description: 'The expectation' })
  @IsInt32(1)
  expectationId: number;
}

/** GET /Inventory/Expectations[/{wid}]: the page and its filters. */
export class ExpectationQueryDto extends DocumentQueryDto('expectations', 'purchase order line') {}
