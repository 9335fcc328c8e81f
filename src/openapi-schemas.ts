import { applyDecorators, HttpStatus } from '@nestjs/common';
import { ApiExtension, ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from './errors.js';

/**
 * The response bodies of the API as OpenAPI schemas, named components of the
 * document (so generated clients get types), in the spec's field order. The
 * mapping functions that build the bodies (`toItemResponse`, `toLotResponse`,
 * …) are the source; `test/openapi.e2e-spec.ts` checks real answers against
 * these schemas, field for field, so the two cannot drift apart.
 */
type Schema = Record<string, unknown>;

const integer: Schema = { type: 'integer' };
const number: Schema = { type: 'number', description: 'Decimal, at most 4 decimal places' };
const string: Schema = { type: 'string' };
const boolean: Schema = { type: 'boolean' };
const dateTime: Schema = { type: 'string', format: 'date-time' };
const nullable = (schema: Schema): Schema => ({ ...schema, nullable: true });

/** An object with exactly these properties, all present. */
function object(properties: Record<string, Schema>, description?: string): Schema {
  return { type: 'object', ...(description ? { description } : {}), required: Object.keys(properties), properties, additionalProperties: false };
}

const refTo = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const itemFields = {
  partNo: integer, shortID: string, description: string, category: integer, subCategory: integer, uOM: string, putUp: string, units: number,
  dfltOwner: integer, created: dateTime, modified: dateTime, discontinued: boolean, createdBy: string,
};
const itemWith = (status: string): Schema => object({ shortID: string, status: { type: 'string', enum: [status] }, ...omit(itemFields, 'shortID') });
const lotFields = {
  recNo: integer, partNo: integer, shortID: string, description: string, associate: string, warehouse: string, wID: integer, spot: string, units: number,
  received: dateTime, shipped: nullable(dateTime), serial: string, serial2: string, rFIDTag: string, remark: string, hold: boolean, jobID: integer,
  jobName: string, active: boolean,
};

export const SCHEMAS = {
  Item: object(itemFields),
  ItemCreated: itemWith('created'),
  ItemUpdated: itemWith('updated'),
  ItemDiscontinued: object({ shortID: string, status: { type: 'string', enum: ['discontinued'] } }),
  Lot: object(lotFields),
  StockLevel: object({
    partNo: integer, shortID: string, available: number, inStock: number, onOrder: number, onHold: number, committed: number, packed: number, aSN: number,
  }),
  Transaction: object(
    {
      id: integer, operationId: string, operation: { type: 'string', enum: ['receive', 'issue', 'move'] }, created: dateTime, partNo: integer, shortID: string,
      recNo: integer, fromRecNo: nullable(integer), fromWid: nullable(integer), fromSpot: nullable(string), toWid: nullable(integer), toSpot: nullable(string),
      units: number, reasonCode: nullable(integer), reference: string, remark: string, clientId: string,
    },
    'One ledger row: one lot touched by one Receive, Move or Issue (extension)',
  ),
  Received: object({ status: { type: 'string', enum: ['received'] }, recNo: integer, lot: refTo('Lot') }),
  Issued: object({
    status: { type: 'string', enum: ['issued'] }, units: number,
    lots: { type: 'array', items: object({ recNo: integer, fromRecNo: integer, units: number }) },
  }),
  Moved: object({
    status: { type: 'string', enum: ['moved'] }, units: number,
    lots: { type: 'array', items: object({ recNo: integer, fromRecNo: integer, units: number, wid: integer, spot: string }) },
  }),
  Health: {
    description: '`redis` only when REDIS_URL is set: "down" while Redis fails and each instance counts rate limits in process (still 200)',
    oneOf: [
      object({ status: { type: 'string', enum: ['ok'] }, database: { type: 'string', enum: ['up'] } }),
      object({ status: { type: 'string', enum: ['ok'] }, database: { type: 'string', enum: ['up'] }, redis: { type: 'string', enum: ['up', 'down'] } }),
    ],
  },
  Token: object({ access_token: string, token_type: { type: 'string', enum: ['bearer'] }, expires_in: integer }),
  Error: object(
    {
      statusCode: integer, error: { type: 'string', enum: Object.keys(ERROR_STATUS) }, message: string,
      details: { type: 'object', nullable: true, additionalProperties: { type: 'array', items: string }, description: 'Field → messages; only for validation_error' },
    },
    'Every failure except 429',
  ),
  RateLimited: object({ message: string }, '429: the one failure with its own, simpler body'),
} satisfies Record<string, Schema>;

/** A reference to one of the schemas above. */
export const ref = (name: keyof typeof SCHEMAS): Schema => refTo(name);

/** The page envelope (spec "Page envelope") around items of one schema. */
export function pageOf(name: keyof typeof SCHEMAS): Schema {
  return object({ value: { type: 'array', items: ref(name) }, totalCount: integer, page: integer, pageSize: integer, pageCount: integer, hasMore: boolean });
}

/** A route's success answer. */
export function ApiAnswer(status: HttpStatus.OK | HttpStatus.CREATED, schema: Schema, description = status === HttpStatus.CREATED ? 'Created' : 'OK') {
  return applyDecorators(ApiResponse({ status, description, schema }));
}

/** A failure a route can answer: an error code of `http/errors.ts`, or the rate limit's own 429. */
export type FailureCode = ErrorCode | 'rate_limited';
/** Failures by code, each with when it happens. */
export type Failures = Partial<Record<FailureCode, string>>;

/**
 * Declares failures of a route. `setupOpenApi` merges every declaration on an
 * operation (access from `@RequirePermission`, idempotency from `@Idempotent`,
 * the route's own) with those its shape implies (a validated body, query
 * parameters) into one documented response per status, with its codes.
 * `source` keeps the declarations of different decorators apart.
 */
export function ApiFailures(failures: Failures, source = 'route') {
  return ApiExtension(`x-failures-${source}`, failures);
}

function omit<T extends Record<string, unknown>>(o: T, key: keyof T): Omit<T, typeof key> {
  const { [key]: _, ...rest } = o;
  return rest;
}
