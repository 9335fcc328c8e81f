import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, ValidateBy } from 'class-validator';
import { EVENT_TYPES, type EventType } from '../event-contract.js';

/** A whole number from a query string; anything else is left as is for the validator to reject. */
const toInteger = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value);

/** The kinds of event: `<kind>.*` stands for every type of its kind. */
export const EVENT_KINDS = ['stock', 'allocation', 'expectation', 'item'] as const;

/** `stock.*`, `allocation.*`, `expectation.*` and `item.*` stand for every type of their kind. */
const PATTERNS: Record<string, readonly EventType[]> = {
  ...Object.fromEntries(EVENT_TYPES.map((type) => [type, [type]])),
  ...Object.fromEntries(EVENT_KINDS.map((kind) => [`${kind}.*`, EVENT_TYPES.filter((type) => type.startsWith(`${kind}.`))])),
};

/** How a `types` list may name types, for the messages that refuse one. */
export const TYPES_SYNTAX = `a comma-separated list of ${EVENT_TYPES.join(', ')}, ${EVENT_KINDS.map((kind) => `${kind}.*`).join(', ')}`;

/** The types a `types` list names, or null when it names something else. */
export function eventTypes(list: string): EventType[] | null {
  const names = list.split(',').map((name) => name.trim());
  if (names.some((name) => !Object.hasOwn(PATTERNS, name))) return null;
  return [...new Set(names.flatMap((name) => PATTERNS[name]))];
}

/** GET /Events (EXTENSIONS "Events"): where to start, how many, which types. */
export class EventQueryDto {
  @ApiPropertyOptional({ description: 'Events after this seq (0: from the start): the next of the previous page', type: 'integer', default: 0, minimum: 0 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'after must be a whole number, 0 or more' })
  @Min(0, { message: 'after must be a whole number, 0 or more' })
  after?: number;

  @ApiPropertyOptional({ description: 'Events per page, 1 to 1000', type: 'integer', default: 100, minimum: 1, maximum: 1000 })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'limit must be a whole number from 1 to 1000' })
  @Min(1, { message: 'limit must be a whole number from 1 to 1000' })
  @Max(1000, { message: 'limit must be a whole number from 1 to 1000' })
  limit?: number;

  @ApiPropertyOptional({
    description: `Only events of these types, comma-separated: ${EVENT_TYPES.join(', ')}; ${EVENT_KINDS.map((kind) => `${kind}.*`).join(', ')} for every type of their kind`,
    type: String,
    example: 'stock.received,stock.issued',
  })
  @IsOptional()
  @ValidateBy({
    name: 'eventTypes',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && eventTypes(value) !== null,
      defaultMessage: () => `types must be ${TYPES_SYNTAX}`,
    },
  })
  types?: string;
}
