import { type ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, type ValidationError } from 'class-validator';
import { isPrototypeKey } from './body-errors.js';
import { type ErrorDetails, MalformedRequest, ValidationFailed } from '../errors.js';

/**
 * The global validation pipe: class-validator DTOs, unknown fields stripped
 * (DECISIONS "General": ignored and never stored), failures as the spec's
 * `validation_error` with `details` field → messages.
 *
 * Query-parameter and body field names are matched case-insensitively
 * against the DTO's properties (`pagesize`, `PageSize` → `pageSize`; `recNo`,
 * `rFIDTag` → `recno`, `rfidTag`), since ERP connectors spell them every way
 * and copy a Lot's own field names back (DECISIONS "General"). A body that is
 * not a JSON object is a `bad_request`; body fields that are null are dropped
 * (see `sentFields`).
 */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      transform: true,
      forbidUnknownValues: false,
      validationError: { target: false, value: false },
      // One message per field: the first rule it breaks, in the order the DTO lists them.
      stopAtFirstError: true,
      exceptionFactory: (errors) => new ValidationFailed(groupByField(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && !isPrimitiveType(metadata.metatype)) {
      if (value === undefined || value === null) value = {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw new MalformedRequest('Request body must be a JSON object.');
      }
      value = canonicalBodyKeys(sentFields(value as Record<string, unknown>), metadata.metatype);
    }
    if (metadata.type === 'query' && metadata.metatype && isPlainObject(value)) {
      value = canonicalQueryKeys(value, metadata.metatype);
    }
    return super.transform(value, metadata);
  }
}

/**
 * A body field sent as `null` counts as not sent: many ERP serializers write
 * null for every unset property. So an optional field keeps its default (or,
 * on PUT, its stored value) and a required one is reported missing. The copy
 * is also an ordinary object, whatever the parser made (form bodies come
 * with no prototype, which class-transformer cannot walk). Prototype keys
 * are already gone: `sanitizeBody` deletes them from every body.
 */
function sentFields(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
}

function isPrimitiveType(metatype: unknown): boolean {
  return [String, Number, Boolean, Object, Array].includes(metatype as never);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const knownKeys = new WeakMap<object, Map<string, string>>();

/** The DTO's property names by their lower-case form (distinct names such as `category` and `categoryID` stay distinct). */
function propertyNames(dto: object): Map<string, string> {
  let keys = knownKeys.get(dto);
  if (!keys) {
    keys = new Map();
    for (const meta of getMetadataStorage().getTargetValidationMetadatas(dto as new () => object, '', true, false)) {
      keys.set(meta.propertyName.toLowerCase(), meta.propertyName);
    }
    knownKeys.set(dto, keys);
  }
  return keys;
}

/**
 * Renames body fields to the DTO's spelling (DECISIONS "General"): `Serial`
 * is `serial`. One field sent in two spellings is refused, naming the field,
 * rather than one spelling silently winning. Unknown fields keep their name
 * (the pipe's whitelist then drops them).
 */
export function canonicalBodyKeys(body: Record<string, unknown>, dto: object): Record<string, unknown> {
  const keys = propertyNames(dto);
  const sentAs = new Map<string, string[]>();
  const fields = Object.entries(body).map(([key, value]): [string, unknown] => {
    const name = keys.get(key.toLowerCase()) ?? key;
    sentAs.set(name, [...(sentAs.get(name) ?? []), key]);
    return [name, value];
  });
  const repeated: ErrorDetails = {};
  for (const [name, spellings] of sentAs) {
    if (spellings.length > 1) repeated[name] = [`${name} was sent more than once (as ${spellings.join(', ')})`];
  }
  if (Object.keys(repeated).length) throw new ValidationFailed(repeated);
  // fromEntries defines own properties, like sentFields: no key can reach a prototype.
  return Object.fromEntries(fields);
}

/** Renames query keys to the DTO's spelling; a key given twice in different cases becomes a repeated value. */
export function canonicalQueryKeys(query: Record<string, unknown>, dto: object): Record<string, unknown> {
  const keys = propertyNames(dto);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    // `out.__proto__ = …` would swap the object's prototype, and through
    // class-transformer it reached Object.prototype: one request broke every
    // later one (found by fuzzing). No parameter of the API has these names.
    if (isPrototypeKey(key)) continue;
    const name = keys.get(key.toLowerCase()) ?? key;
    out[name] = Object.hasOwn(out, name) ? ([] as unknown[]).concat(out[name], value) : value;
  }
  return out;
}

/** class-validator errors as field → messages; nested fields as dotted paths (`lines.0.units`). */
export function groupByField(errors: ValidationError[], parent = '', out: ErrorDetails = {}): ErrorDetails {
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) (out[path] ??= []).push(...Object.values(error.constraints));
    if (error.children?.length) groupByField(error.children, path, out);
  }
  return out;
}
