import { ApiExtraModels, ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { ApiBoolean, ApiDateTime, ApiDecimal, ApiEnum, ApiInteger, ApiString } from '../http/openapi-decorators.js';
import { PageOf } from '../pagination/page.responses.js';
import { AllocatedResponseDto, AllocationCancelledResponseDto, PackedResponseDto } from './allocation.responses.js';
import { ExpectationCancelledResponseDto, ExpectationShippedResponseDto, ExpectedResponseDto } from './expectation.responses.js';
import type { LedgerEntry, Lot } from './inventory.entities.js';

/** Spec "Inventory": a lot, fields in the spec's order. */
@ApiSchema({ name: 'Lot' })
export class LotResponseDto {
  @ApiInteger() recNo: number;
  @ApiInteger() partNo: number;
  @ApiString() shortID: string;
  @ApiString() description: string;
  @ApiString() associate: string;
  @ApiString() warehouse: string;
  @ApiInteger() wID: number;
  @ApiString() spot: string;
  @ApiDecimal() units: number;
  @ApiDateTime() received: string;
  @ApiDateTime({ nullable: true }) shipped: string | null;
  @ApiString() serial: string;
  @ApiString() serial2: string;
  @ApiString() rFIDTag: string;
  @ApiString() remark: string;
  @ApiBoolean() hold: boolean;
  @ApiInteger() jobID: number;
  @ApiString() jobName: string;
  @ApiBoolean() active: boolean;
}

/** The spec's Lot fields in the spec's order. */
export function toLotResponse(
  lot: Pick<Lot, 'recNo' | 'partNo' | 'wID' | 'spot' | 'units' | 'received' | 'shipped' | 'serial' | 'serial2' | 'rFIDTag' | 'remark' | 'hold' | 'jobID' | 'jobName' | 'associate' | 'active'>,
  shortID: string,
  description: string,
  warehouse: string,
): LotResponseDto {
  return {
    recNo: lot.recNo,
    partNo: lot.partNo,
    shortID,
    description,
    associate: lot.associate,
    warehouse,
    wID: lot.wID,
    spot: lot.spot,
    units: lot.units,
    received: lot.received.toISOString(),
    shipped: lot.shipped ? lot.shipped.toISOString() : null,
    serial: lot.serial,
    serial2: lot.serial2,
    rFIDTag: lot.rFIDTag,
    remark: lot.remark,
    hold: lot.hold,
    jobID: lot.jobID,
    jobName: lot.jobName,
    active: lot.active,
  };
}

/** Spec "Stock levels": one item summed over the warehouses in scope (built in `InventoryQueries.stockPage`). */
@ApiSchema({ name: 'StockLevel' })
export class StockLevelResponseDto {
  @ApiInteger() partNo: number;
  @ApiString() shortID: string;
  @ApiDecimal() available: number;
  @ApiDecimal() inStock: number;
  @ApiDecimal() onOrder: number;
  @ApiDecimal() onHold: number;
  @ApiDecimal() committed: number;
  @ApiDecimal() packed: number;
  @ApiDecimal() aSN: number;
}

@ApiSchema({ name: 'Transaction', description: 'One ledger row: one lot touched by one Receive, Move or Issue (extension)' })
export class TransactionResponseDto {
  @ApiInteger() id: number;
  @ApiString() operationId: string;
  @ApiEnum(['receive', 'issue', 'move', 'hold', 'release', 'count']) operation: LedgerEntry['operation'];
  @ApiDateTime() created: string;
  @ApiInteger() partNo: number;
  @ApiString() shortID: string;
  @ApiInteger() recNo: number;
  @ApiInteger({ nullable: true }) fromRecNo: number | null;
  @ApiInteger({ nullable: true }) fromWid: number | null;
  @ApiString({ nullable: true }) fromSpot: string | null;
  @ApiInteger({ nullable: true }) toWid: number | null;
  @ApiString({ nullable: true }) toSpot: string | null;
  @ApiDecimal() units: number;
  @ApiInteger({ nullable: true }) reasonCode: number | null;
  @ApiString() reference: string;
  @ApiString() remark: string;
  @ApiString() clientId: string;
}

export function toTransactionResponse(e: LedgerEntry, shortID: string): TransactionResponseDto {
  return {
    id: e.id,
    operationId: e.operationId,
    operation: e.operation,
    created: e.created.toISOString(),
    partNo: e.partNo,
    shortID,
    recNo: e.recNo,
    fromRecNo: e.fromRecNo,
    fromWid: e.fromWid,
    fromSpot: e.fromSpot,
    toWid: e.toWid,
    toSpot: e.toSpot,
    units: e.units,
    reasonCode: e.reasonCode,
    reference: e.reference,
    remark: e.remark,
    clientId: e.clientId,
  };
}

@ApiSchema({ name: 'LotPage' })
export class LotPageResponseDto extends PageOf(LotResponseDto) {}

@ApiSchema({ name: 'StockLevelPage' })
export class StockLevelPageResponseDto extends PageOf(StockLevelResponseDto) {}

@ApiSchema({ name: 'TransactionPage' })
export class TransactionPageResponseDto extends PageOf(TransactionResponseDto) {}

/** POST /Inventory/Receive: the new lot. */
@ApiSchema({ name: 'Received' })
export class ReceivedResponseDto {
  @ApiEnum(['received']) status: 'received';
  @ApiInteger() recNo: number;
  @ApiProperty({ type: LotResponseDto }) lot: LotResponseDto;
}

/** One lot an Issue took units from: `recNo` the lot that holds the issued units, `fromRecNo` the lot they came from. */
@ApiSchema({ name: 'IssuedLot' })
export class IssuedLotResponseDto {
  @ApiInteger() recNo: number;
  @ApiInteger() fromRecNo: number;
  @ApiDecimal() units: number;
}

/** POST /Inventory/Issue. */
@ApiSchema({ name: 'Issued' })
export class IssuedResponseDto {
  @ApiEnum(['issued']) status: 'issued';
  @ApiDecimal() units: number;
  @ApiProperty({ type: [IssuedLotResponseDto] }) lots: IssuedLotResponseDto[];
}

/** POST /Inventory/Hold: the lots put on hold (`recNo` the lot now held, `fromRecNo` the lot the units came from). */
@ApiSchema({ name: 'Held' })
export class HeldResponseDto {
  @ApiEnum(['held']) status: 'held';
  @ApiDecimal() units: number;
  @ApiProperty({ type: [IssuedLotResponseDto] }) lots: IssuedLotResponseDto[];
}

/** POST /Inventory/Release: the lots released from hold. */
@ApiSchema({ name: 'Released' })
export class ReleasedResponseDto {
  @ApiEnum(['released']) status: 'released';
  @ApiDecimal() units: number;
  @ApiProperty({ type: [IssuedLotResponseDto] }) lots: IssuedLotResponseDto[];
}

/** One lot a Count changed: `units` added (the new lot, `fromRecNo` null) or taken (negative; `recNo` the archived part). */
@ApiSchema({ name: 'CountedLot' })
export class CountedLotResponseDto {
  @ApiInteger() recNo: number;
  @ApiInteger({ nullable: true }) fromRecNo: number | null;
  @ApiDecimal() units: number;
}

/** POST /Inventory/Count: on hand before, the count, the difference (counted − before), the lots changed. */
@ApiSchema({ name: 'Counted' })
export class CountedResponseDto {
  @ApiEnum(['counted']) status: 'counted';
  @ApiDecimal() before: number;
  @ApiDecimal() counted: number;
  @ApiDecimal() delta: number;
  @ApiProperty({ type: [CountedLotResponseDto] }) lots: CountedLotResponseDto[];
}

/** One lot a Move took units from, and where they went. */
@ApiSchema({ name: 'MovedLot' })
export class MovedLotResponseDto extends IssuedLotResponseDto {
  @ApiInteger() wid: number;
  @ApiString() spot: string;
}

/** POST /Inventory/Move. */
@ApiSchema({ name: 'Moved' })
export class MovedResponseDto {
  @ApiEnum(['moved']) status: 'moved';
  @ApiDecimal() units: number;
  @ApiProperty({ type: [MovedLotResponseDto] }) lots: MovedLotResponseDto[];
}

/** The answers a Batch operation can have: each its endpoint's own. */
const BATCH_RESULTS = [
  ReceivedResponseDto,
  IssuedResponseDto,
  MovedResponseDto,
  HeldResponseDto,
  ReleasedResponseDto,
  CountedResponseDto,
  AllocatedResponseDto,
  PackedResponseDto,
  AllocationCancelledResponseDto,
  ExpectedResponseDto,
  ExpectationShippedResponseDto,
  ExpectationCancelledResponseDto,
];
type BatchResult = InstanceType<(typeof BATCH_RESULTS)[number]>;

/** POST /Inventory/Batch: each operation's own answer, in order. */
@ApiSchema({ name: 'BatchCompleted' })
@ApiExtraModels(...BATCH_RESULTS)
export class BatchResponseDto {
  @ApiEnum(['completed']) status: 'completed';
  @ApiProperty({ type: 'array', items: { oneOf: BATCH_RESULTS.map((answer) => ({ $ref: getSchemaPath(answer) })) } })
  results: BatchResult[];
}
