import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode, type ErrorDetails } from '../errors.js';
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
    additionalProperties: { type: 'array', items: { type: 'string' } },
    description: 'Field → messages; only for validation_error',
  })
  details: ErrorDetails | null;
}

/** DECISIONS "Rate limit": the 429 body, with `Retry-After`. */
@ApiSchema({ name: 'RateLimited', description: '429: the one failure with its own, simpler body' })
export class RateLimitedResponseDto {
  @ApiString() message: string;
}
