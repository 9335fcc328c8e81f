import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { toIsoDate } from '../http/datetime.js';
import { IsWellFormedText } from '../http/validators.js';
import type { PageQuery } from './page-request.js';

/** A whole number from a query string; anything else is left as is for the validator to reject. */
const toInteger = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value);
/**
 * Sort and direction are never errors (DECISIONS "Pagination"): a value that is not one string is ignored.
 * Only text that is not well-formed is refused, as in every field (DECISIONS "General").
 */
const singleString = ({ value }: { value: unknown }) => (typeof value === 'string' ? value : undefined);

/** The common query parameters of every paginated list (spec "Limits"). */
export class PageQueryDto implements PageQuery {
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

  @ApiPropertyOptional({
    description:
      'Opaque position of a page: the cursor of the next or prev link of a page of this list, sent with the other parameters of that link. ' +
      'The page is then read by seeking from a row of the page it came from, as fast deep in the list as at its start. ' +
      'A cursor that is damaged, edited, made by another deployment or for another list, sort, direction, filter or pageSize is a validation_error on cursor; start again from page.',
    type: String,
    maxLength: 2048,
  })
  @IsOptional()
  // Checked against the list it is sent to (PageCursors): here only that it is one value.
  @IsString({ message: 'cursor must be one value, the cursor of a next or prev link' })
  cursor?: string;
}
