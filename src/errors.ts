/**
 * The spec's error codes ("Errors") with their HTTP statuses, plus the ones
 * DECISIONS adds (413, OAuth's token errors, idempotency). One table: the
 * exception filter is the only place that turns a code into a response.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  request_timeout: 408,
  validation_error: 400,
  invalid_request: 400,
  unsupported_grant_type: 400,
  unauthorized: 401,
  invalid_client: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  request_header_fields_too_large: 431,
  idempotency_key_reused: 422,
  internal_error: 500,
  not_implemented: 501,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorDetails = Record<string, string[]>;

/**
 * DECISIONS "Errors" → "Conflicts": why a 409 was answered, for a connector to
 * branch on without reading the message. A new reason is a new row there first.
 */
export const CONFLICT_REASONS = [
  'insufficient_stock',
  'duplicate_short_id',
  'item_discontinued',
  'stock_bound',
  'count_changed',
  'request_in_progress',
  'concurrent_change',
  'batch_too_large',
  'allocation_closed',
  'expectation_closed',
] as const;
export type ConflictReason = (typeof CONFLICT_REASONS)[number];

/**
 * A 409's `details`: its `reason` plus the figures its message names, in
 * this order (the OpenAPI schema's), quantities as numbers; in a Batch, the
 * failing operation's index as `operation`.
 */
export interface ConflictDetails {
  reason: ConflictReason;
  itemID?: string;
  wid?: number;
  /** null: every matching unit (a Hold or Release without `units`). */
  requested?: number | null;
  available?: number;
  shortID?: string;
  bound?: number;
  expected?: number;
  onHand?: number;
  limit?: number;
  /** allocation_closed, expectation_closed: the document and the state it is in. */
  allocationId?: number;
  expectationId?: number;
  state?: string;
  operation?: number;
}

/**
 * A failure the service expects and names. Features subclass it with their own
 * small classes (`DuplicateShortId`, `InsufficientStock`); services throw those
 * and never build HTTP bodies themselves.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails | ConflictDetails | null = null,
    /** Response headers the failure calls for, e.g. `WWW-Authenticate`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Every 409 (DECISIONS "Conflicts"): `details` always names the reason.
 * `retryAfterSeconds`, for the reasons a plain retry may cure, is sent as
 * `Retry-After`.
 */
export class Conflict extends DomainError {
  declare readonly details: ConflictDetails;

  constructor(message: string, details: ConflictDetails, retryAfterSeconds?: number) {
    super('conflict', message, details, retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class ValidationFailed extends DomainError {
  declare readonly details: ErrorDetails;

  constructor(details: ErrorDetails) {
    super('validation_error', 'Model validation failed.', details);
  }
}

export class MalformedRequest extends DomainError {
  constructor(message: string) {
    super('bad_request', message);
  }
}

export class PayloadTooLarge extends DomainError {
  constructor() {
    super('payload_too_large', 'Request body is larger than 1 MiB.');
  }
}

/**
 * The 429 of DECISIONS "Rate limit": not a DomainError, since its body is only
 * `message` (with `Retry-After`), unlike every other failure.
 */
export class RateLimitExceeded extends Error {
  constructor(
    readonly limit: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`Rate limit exceeded: ${limit} requests per minute.`);
  }
}
