import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { type ConflictDetails, ERROR_STATUS, type ErrorCode, type ErrorDetails } from '../errors.js';
import { ApiEnum, ApiInteger, ApiString } from './openapi-decorators.js';

/** Spec "Errors": the body of every failure but 429, built by `errorBody` (`exception.filter.ts`) alone. */
@ApiSchema({ name: 'Error', description: 'Every failure except 429' })
export class ErrorResponseDto {
  @ApiInteger() statusCode: number;
  @ApiEnum(Object.keys(ERROR_STATUS)) error: ErrorCode;
  @ApiString() message: string;

  @ApiProperty({
    type: 'object',
    nullable: true,
    // Field → messages (validation_error); reason and figures, strings or numbers (conflict).
    additionalProperties: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }, { type: 'number' }] },
    description:
      'validation_error: field → array of messages. conflict (DECISIONS "Conflicts"), where given: `reason` (e.g. `batch_too_large`) and the figures the message names (`limit`; in a Batch the failing `operation` index). Otherwise null',
  })
  details: ErrorDetails | ConflictDetails | null;
}

/** DECISIONS "Rate limit": the 429 body, with `Retry-After`. */
@ApiSchema({ name: 'RateLimited', description: '429: the one failure with its own, simpler body' })
export class RateLimitedResponseDto {
  @ApiString() message: string;
}
