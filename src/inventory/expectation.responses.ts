import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiDateTime, ApiDecimal, ApiEnum, ApiInteger, ApiString } from '../http/openapi-decorators.js';
import { PageOf } from '../pagination/page.responses.js';
import { DOCUMENT_STATES, type DocumentState, type Expectation, EXPECTATION_STAGES, type ExpectationStage } from './documents.entities.js';

/** EXTENSIONS "Every stock state the spec names": an expectation, its fields in the contract's order. */
@ApiSchema({ name: 'Expectation', description: 'Units of an item expected in a warehouse for a purchase order line (extension)' })
export class ExpectationResponseDto {
  @ApiInteger() id: number;
  @ApiString({ description: "The item's shortID" }) itemID: string;
  @ApiInteger() partNo: number;
  @ApiInteger() wid: number;
  @ApiString({ description: 'The purchase order line' }) reference: string;
  @ApiDecimal() units: number;
  @ApiDecimal() received: number;
  @ApiEnum(EXPECTATION_STAGES, { description: 'ordered (what is left counts in onOrder) or shipped (in aSN)' }) stage: ExpectationStage;
  @ApiEnum(DOCUMENT_STATES, { description: 'open while units are left to receive; done once received; cancelled' }) state: DocumentState;
  @ApiDateTime({ nullable: true }) due: string | null;
  @ApiDateTime() created: string;
  @ApiDateTime() modified: string;
}

export function toExpectationResponse(e: Expectation, shortID: string): ExpectationResponseDto {
  return {
    id: e.id,
    itemID: shortID,
    partNo: e.partNo,
    wid: e.wID,
    reference: e.reference,
    units: e.units,
    received: e.received,
    stage: e.stage,
    state: e.state,
    due: e.due ? e.due.toISOString() : null,
    created: e.created.toISOString(),
    modified: e.modified.toISOString(),
  };
}

/** POST /Inventory/Expect. */
@ApiSchema({ name: 'Expected' })
export class ExpectedResponseDto {
  @ApiEnum(['expected']) status: 'expected';
  @ApiProperty({ type: ExpectationResponseDto }) expectation: ExpectationResponseDto;
}

/** POST /Inventory/Expectations/{id}/Ship. */
@ApiSchema({ name: 'ExpectationShipped' })
export class ExpectationShippedResponseDto {
  @ApiEnum(['shipped']) status: 'shipped';
  @ApiProperty({ type: ExpectationResponseDto }) expectation: ExpectationResponseDto;
}

/** POST /Inventory/Expectations/{id}/Cancel. */
@ApiSchema({ name: 'ExpectationCancelled' })
export class ExpectationCancelledResponseDto {
  @ApiEnum(['cancelled']) status: 'cancelled';
  @ApiProperty({ type: ExpectationResponseDto }) expectation: ExpectationResponseDto;
}

@ApiSchema({ name: 'ExpectationPage' })
export class ExpectationPageResponseDto extends PageOf(ExpectationResponseDto) {}
