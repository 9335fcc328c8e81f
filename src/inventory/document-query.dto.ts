import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsIdentifier, IsShortId } from '../http/validators.js';
import { PageQueryDto } from '../pagination/page-query.dto.js';
import { DOCUMENT_STATES, type DocumentState } from './documents.entities.js';

/**
 * The query of a document list (GET /Inventory/Allocations[/{wid}], and of
 * expectations): the page and the filters every stock document has, with the
 * same rules; only their descriptions name the document (`documents`, as a
 * plural) and its line (`line`). Each list's DTO extends the class it makes.
 */
export function DocumentQueryDto(documents: string, line: string) {
  class DocumentQuery extends PageQueryDto {
    @ApiPropertyOptional({ description: `Only ${documents} of this item (shortID)` })
    @IsOptional()
    @IsShortId('itemID')
    itemID?: string;

    @ApiPropertyOptional({ description: `Only ${documents} for this ${line} (exactly)` })
    @IsOptional()
    @IsIdentifier(64)
    reference?: string;

    @ApiPropertyOptional({ description: `Only ${documents} in this state`, enum: DOCUMENT_STATES })
    @IsOptional()
    @IsIn(DOCUMENT_STATES, { message: `state must be one of ${DOCUMENT_STATES.join(', ')}` })
    state?: DocumentState;
  }
  return DocumentQuery;
}
