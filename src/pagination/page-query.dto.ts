import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsInt, IsOptional, Min } from 'class-validator';
import { toIsoDate } from '../http/datetime.js';
import { IsWellFormedText } from '../http/validators.js';

/** A whole number from a query string; anything else is left as is for the validator to reject. */
const toInteger = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value);
/**
 * Sort and direction are never errors (DECISIONS "Pagination"): a value that is not one string is ignored.
 * Only text that is not well-formed is refused, as in every field (DECISIONS "General").
 */
const singleString = ({ value }: { value: unknown }) => (typeof value === 'string' ? value : undefined);

/** The common query parameters of every paginated list (spec "Limits"). */
export class PageQueryDto {
  @ApiPropertyOptional({ description: 'Page number, 1-based', type: 'integer', default: 1, minimum: 1 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'page must be a whole number' })
  @Min(1, { message: 'page must be 1 or more' })
  page?: number;

  @ApiPropertyOptional({ description: 'Items per page; values above the maximum are capped', type: 'integer', default: 25, minimum: 1 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'pageSize must be a whole number' })
  @Min(1, { message: 'pageSize must be 1 or more' })
  pageSize?: number;

  @ApiPropertyOptional({ description: 'Column to sort by; an unknown column is ignored' })
  @IsOptional()
  @Transform(singleString)
  @IsWellFormedText()
  sort?: string;

  @ApiPropertyOptional({ description: 'ASC or DESC; any other value is ignored', enum: ['ASC', 'DESC'] })
  @IsOptional()
  @Transform(singleString)
  @IsWellFormedText()
  direction?: string;

  @ApiPropertyOptional({ description: 'Only records modified at or after this instant (ISO 8601; UTC without a zone)', type: String, format: 'date-time' })
  @IsOptional()
  @Transform(toIsoDate)
  @IsDate({ message: 'modifiedSince must be an ISO 8601 datetime' })
  modifiedSince?: Date;
}
