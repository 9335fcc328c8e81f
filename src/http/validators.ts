import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsInt, IsString, Matches, MaxLength, Min, MinLength, Max, ValidateBy, type ValidationOptions } from 'class-validator';
import { DECIMAL_MAX, toTenThousandths } from '../database/decimal.js';

/**
 * A whole number that fits the INT columns (0 … 2147483647 unless said), and
 * an OpenAPI `integer` with those bounds (the field's own `@ApiProperty`,
 * applied after, adds its description and whether it is required).
 */
export function IsInt32(min = 0, max = 2_147_483_647) {
  return applyDecorators(
    ApiProperty({ type: 'integer', minimum: min, maximum: max }),
    IsInt({ message: '$property must be a whole number' }),
    Min(min, { message: `$property must be at least ${min}` }),
    Max(max, { message: `$property must be at most ${max}` }),
  );
}

/**
 * A DECIMAL(18,4) value given as a JSON number (DECISIONS "General"): finite,
 * at most 4 decimal places, within the column, and above `greaterThan` if given.
 */
export function IsDecimal4(options: { greaterThan?: number; max?: number } = {}, validation?: ValidationOptions) {
  const max = options.max ?? DECIMAL_MAX;
  return ValidateBy(
    {
      name: 'isDecimal4',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' &&
          toTenThousandths(value) !== null &&
          value <= max &&
          (options.greaterThan === undefined || value > options.greaterThan),
        defaultMessage: (args) => {
          const value = args?.value;
          if (typeof value !== 'number' || !Number.isFinite(value)) return `${args?.property} must be a number`;
          if (toTenThousandths(value) === null && Math.abs(value) <= DECIMAL_MAX) return `${args?.property} must have at most 4 decimal places`;
          if (options.greaterThan !== undefined && value <= options.greaterThan) return `${args?.property} must be greater than ${options.greaterThan}`;
          return `${args?.property} must be at most ${max}`;
        },
      },
    },
    validation,
  );
}

/** A text field of at most `max` characters, no control characters. */
export function IsText(max: number, min = 0) {
  return applyDecorators(
    IsString({ message: '$property must be a string' }),
    MinLength(min, { message: `$property must be at least ${min} character${min === 1 ? '' : 's'}` }),
    MaxLength(max, { message: `$property must be at most ${max} characters` }),
    Matches(/^[^\p{Cc}]*$/u, { message: '$property must not contain control characters' }),
  );
}

/** DECISIONS "Items": 1–64 characters, no `/`, `?`, `#`, control characters or leading/trailing spaces. */
export function IsShortId(property = 'shortID') {
  return applyDecorators(
    IsDefined({ message: `${property} is required` }),
    IsString({ message: `${property} must be a string` }),
    MinLength(1, { message: `${property} must not be empty` }),
    MaxLength(64, { message: `${property} must be at most 64 characters` }),
    Matches(/^[^/?#\p{Cc}]*$/u, { message: `${property} must not contain /, ?, # or control characters` }),
    Matches(/^(?!\s)[\s\S]*(?<!\s)$/, { message: `${property} must not start or end with a space` }),
  );
}
