import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsInt, IsString, Min, MinLength, Max, ValidateBy, type ValidationOptions } from 'class-validator';
import { caseKey } from '../database/case-key.js';
import { DECIMAL_MAX, toTenThousandths } from '../quantity.js';

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
 * at most 4 decimal places, within the column, above `greaterThan` and at
 * least `min` if given.
 */
export function IsDecimal4(options: { greaterThan?: number; min?: number; max?: number } = {}, validation?: ValidationOptions) {
  const max = options.max ?? DECIMAL_MAX;
  return ValidateBy(
    {
      name: 'isDecimal4',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' &&
          toTenThousandths(value) !== null &&
          value <= max &&
          (options.greaterThan === undefined || value > options.greaterThan) &&
          (options.min === undefined || value >= options.min),
        defaultMessage: (args) => {
          const value = args?.value;
          if (typeof value !== 'number' || !Number.isFinite(value)) return `${args?.property} must be a number`;
          if (toTenThousandths(value) === null && Math.abs(value) <= DECIMAL_MAX) return `${args?.property} must have at most 4 decimal places`;
          if (options.greaterThan !== undefined && value <= options.greaterThan) return `${args?.property} must be greater than ${options.greaterThan}`;
          if (options.min !== undefined && value < options.min) return `${args?.property} must not be less than ${options.min}`;
          return `${args?.property} must be at most ${max}`;
        },
      },
    },
    validation,
  );
}

/**
 * Code points that are not text (DECISIONS "General": well-formed or refused):
 * control characters (Cc), format characters (Cf: zero-width spaces and
 * joiners, bidi overrides, the BOM, soft hyphens) and unpaired surrogates (Cs).
 * In a `u` regex a lone surrogate is a code point of its own, so `\p{Cs}`
 * matches it (and never half of a well-formed pair); see validators.spec.ts.
 */
const NOT_TEXT = /[\p{Cc}\p{Cf}\p{Cs}]/u;
/** A leading or trailing space of any kind (JS `\s`: U+0020, tabs, NBSP, ideographic space, …). */
const EDGE_SPACE = /^\s|\s$/;

export const isWellFormedText = (value: string): boolean => !NOT_TEXT.test(value);
export const hasEdgeSpace = (value: string): boolean => EDGE_SPACE.test(value);
/** Length as the databases count it (code points): validator.js's MaxLength skips variation selectors. */
export const charCount = (value: string): number => {
  let n = 0;
  for (const _ of value) n++;
  return n;
};

const notTextMessage = (property: string) =>
  `${property} must not contain control characters, invisible format characters (zero-width, bidi, BOM) or unpaired surrogates`;

/** Well-formed text (see NOT_TEXT), for every string a client sends. */
export function IsWellFormedText() {
  return ValidateBy({
    name: 'isWellFormedText',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || isWellFormedText(value),
      defaultMessage: (args) => notTextMessage(args?.property ?? 'value'),
    },
  });
}

function MaxChars(max: number) {
  return ValidateBy({
    name: 'maxChars',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && charCount(value) <= max,
      defaultMessage: (args) => `${args?.property} must be at most ${max} characters`,
    },
  });
}

/** A text field of at most `max` characters, well-formed (no control or format characters). */
export function IsText(max: number, min = 0) {
  return applyDecorators(
    IsString({ message: '$property must be a string' }),
    MinLength(min, { message: `$property must be at least ${min} character${min === 1 ? '' : 's'}` }),
    MaxChars(max),
    IsWellFormedText(),
  );
}

/**
 * An identifier text field (DECISIONS "General": `spot`, `serial`, `rfidTag`,
 * …): also no leading or trailing space, so that matching it is exact on every
 * database (MySQL/MariaDB collations ignore trailing spaces, SQLite does not).
 */
export function IsIdentifier(max: number) {
  return applyDecorators(
    IsText(max),
    ValidateBy({
      name: 'noEdgeSpace',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && !hasEdgeSpace(value),
        defaultMessage: (args) => `${args?.property} must not start or end with a space`,
      },
    }),
  );
}

/**
 * Why a shortID or an alias is refused, or null (DECISIONS "Items"): 1–64
 * characters, well-formed, no `/`, `?`, `#` or leading/trailing space, and a
 * key (its NFKC case fold, which a few characters expand) that fits the key column.
 */
export function shortIdProblem(value: string, property: string): string | null {
  if (value.length === 0) return `${property} must not be empty`;
  if (charCount(value) > 64) return `${property} must be at most 64 characters`;
  if (!isWellFormedText(value)) return notTextMessage(property);
  if (/[/?#]/.test(value)) return `${property} must not contain /, ? or #`;
  if (hasEdgeSpace(value)) return `${property} must not start or end with a space`;
  if (charCount(caseKey(value)) > 64) return `${property} must be at most 64 characters once normalised (NFKC)`;
  return null;
}

/** DECISIONS "Items": a shortID (or `itemID`, `key`), see shortIdProblem. */
export function IsShortId(property = 'shortID') {
  return applyDecorators(
    IsDefined({ message: `${property} is required` }),
    IsString({ message: `${property} must be a string` }),
    ValidateBy({
      name: 'isShortId',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && shortIdProblem(value, property) === null,
        defaultMessage: (args) => shortIdProblem(String(args?.value), property) ?? `${property} is invalid`,
      },
    }),
  );
}
