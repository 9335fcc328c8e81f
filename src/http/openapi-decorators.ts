import { applyDecorators, HttpStatus, type Type } from '@nestjs/common';
import { ApiExtension, ApiExtraModels, ApiProperty, ApiResponse, getSchemaPath, type ReferenceObject, type SchemaObject } from '@nestjs/swagger';
import type { ErrorCode } from '../errors.js';

/**
 * OpenAPI decorators shared by every feature: the field decorators of the
 * response classes (`*.responses.ts`), the success answer of a route
 * (`@ApiAnswer`) and its failures (`@ApiFailures`).
 *
 * A response class is the TypeScript type of an answer and its OpenAPI schema
 * at once: a named component (`@ApiSchema({ name })`, so generated clients get
 * a type), its properties in declaration order (the spec's field order), each
 * required. The field decorators name the type explicitly: TypeScript's
 * reflected types cannot tell an integer from a decimal, nor say null. What no
 * decorator expresses, that an answer has no other field
 * (`additionalProperties: false`), `closeResponseSchemas` in `src/openapi.ts`
 * adds to every schema an answer refers to.
 */

type FieldOptions = { nullable?: true; description?: string };

/** A whole number. */
export const ApiInteger = (options: FieldOptions = {}) => ApiProperty({ type: 'integer', ...options });

/** A quantity: exact DECIMAL(18,4) (`src/quantity.ts`), which a JSON number alone does not say. */
export const ApiDecimal = () => ApiProperty({ type: 'number', description: 'Decimal, at most 4 decimal places' });

export const ApiString = (options: FieldOptions = {}) => ApiProperty({ type: 'string', ...options });

export const ApiBoolean = () => ApiProperty({ type: 'boolean' });

/** A UTC datetime as ISO 8601 with milliseconds (`toISOString`). */
export const ApiDateTime = (options: FieldOptions = {}) => ApiProperty({ type: 'string', format: 'date-time', ...options });

/** A string that is one of `values`, e.g. a status. */
export const ApiEnum = (values: readonly string[], options: FieldOptions = {}) => ApiProperty({ type: 'string', enum: [...values], ...options });

/**
 * A success body: a response class, an array of one (`[ItemResponseDto]`),
 * one of several (`oneOf`), or the name of a component that the edge adds to
 * the document (`src/openapi.ts`): the feed's page, whose class names the
 * answers of features the feed does not import.
 */
export type Answer = Type<unknown> | [Type<unknown>] | OneOf | string;
type OneOf = { oneOf: Array<Type<unknown> | [Type<unknown>]>; description?: string };

/** An answer that is one of these shapes, told apart by their fields. */
export const oneOf = (answers: OneOf['oneOf'], description?: string): OneOf => ({ oneOf: answers, ...(description ? { description } : {}) });

function schemaOf(answer: Answer, models: Array<Type<unknown>>): SchemaObject & Partial<ReferenceObject> {
  if (typeof answer === 'string') return { $ref: getSchemaPath(answer) };
  if (Array.isArray(answer)) return { type: 'array', items: schemaOf(answer[0], models) };
  if ('oneOf' in answer) return { ...(answer.description ? { description: answer.description } : {}), oneOf: answer.oneOf.map((a) => schemaOf(a, models)) };
  models.push(answer);
  return { $ref: getSchemaPath(answer) };
}

/** A route's success answer; the classes it names become components of the document. */
export function ApiAnswer(status: HttpStatus.OK | HttpStatus.CREATED, answer: Answer, description = status === HttpStatus.CREATED ? 'Created' : 'OK') {
  const models: Array<Type<unknown>> = [];
  const schema = schemaOf(answer, models);
  return applyDecorators(ApiExtraModels(...models), ApiResponse({ status, description, schema }));
}

/** A failure a route can answer: an error code of `src/errors.ts`, or the rate limit's own 429. */
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
