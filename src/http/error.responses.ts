import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { CONFLICT_REASONS, type ConflictDetails, type ConflictReason, ERROR_STATUS, type ErrorCode, type ErrorDetails } from '../errors.js';
import { ApiEnum, ApiInteger, ApiString } from './openapi-decorators.js';

/** Spec "Errors": the body of every failure but 429, built by `errorBody` (below) alone. */
@ApiSchema({ name: 'Error', description: 'Every failure except 429' })
export class ErrorResponseDto {
  @ApiInteger() statusCode: number;
  @ApiEnum(Object.keys(ERROR_STATUS)) error: ErrorCode;
  @ApiString() message: string;

  @ApiProperty({
    type: 'object',
    nullable: true,
    // Field → messages (validation_error); reason and figures, strings or numbers, `requested` possibly null (conflict).
    additionalProperties: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }, { type: 'number', nullable: true }] },
    description: 'validation_error: field → array of messages. conflict: a ConflictDetails (its `reason` and figures). Otherwise null',
  })
  details: ErrorDetails | ConflictDetails | null;
}

/** The body of a failure: `details` only for a validation_error or a conflict, else null. */
export function errorBody(code: ErrorCode, message: string, details: ErrorResponseDto['details'] = null): ErrorResponseDto {
  return { statusCode: ERROR_STATUS[code], error: code, message, details: code === 'validation_error' || code === 'conflict' ? details : null };
}

const QUANTITY = { type: 'number', description: 'Decimal, at most 4 decimal places' } as const;

/**
 * DECISIONS "Conflicts": the `details` of every 409. `reason` is always
 * there; the other fields only with the reasons that name them (the table in
 * docs/api.md), `operation` only in a Batch. A generated client switches on
 * `reason`. Field order is the order in which they are sent.
 */
@ApiSchema({ name: 'ConflictDetails', description: 'Why a 409 was answered, and the figures its message names' })
export class ConflictDetailsDto implements ConflictDetails {
  @ApiEnum(CONFLICT_REASONS, { description: 'Which conflict: branch on this, not on the message' }) reason: ConflictReason;
  @ApiPropertyOptional({ type: 'string', description: 'insufficient_stock, item_discontinued: the item\'s shortID' }) itemID?: string;
  @ApiPropertyOptional({ type: 'integer', description: 'insufficient_stock: the warehouse' }) wid?: number;
  @ApiPropertyOptional({ ...QUANTITY, nullable: true, description: 'insufficient_stock: the units asked for; null for every matching unit (Hold or Release without units)' })
  requested?: number | null;
  @ApiPropertyOptional({ ...QUANTITY, description: 'insufficient_stock: the units there are to take (for Release: held units)' }) available?: number;
  @ApiPropertyOptional({ type: 'string', description: 'duplicate_short_id: the shortID sent' }) shortID?: string;
  @ApiPropertyOptional({ ...QUANTITY, description: 'stock_bound: the most units an item may hold, in one warehouse and across all' }) bound?: number;
  @ApiPropertyOptional({ ...QUANTITY, description: 'count_changed: the units the Count expected on hand' }) expected?: number;
  @ApiPropertyOptional({ ...QUANTITY, description: 'count_changed: the units on hand now' }) onHand?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'batch_too_large: the most lots a batch may touch' }) limit?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'allocation_closed: the allocation named' }) allocationId?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'expectation_closed: the expectation named' }) expectationId?: number;
  @ApiPropertyOptional({ type: 'string', enum: ['done', 'cancelled'], description: 'allocation_closed, expectation_closed: the state the document is in' }) state?: string;
  @ApiPropertyOptional({ type: 'integer', description: 'In a Batch: the index of the failing operation' }) operation?: number;
}

/** DECISIONS "Rate limit": the 429 body, with `Retry-After`. */
@ApiSchema({ name: 'RateLimited', description: '429: the one failure with its own, simpler body' })
export class RateLimitedResponseDto {
  @ApiString() message: string;
}
