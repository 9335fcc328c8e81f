import type { INestApplication, Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiSchema, DocumentBuilder, getSchemaPath, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ItemResponseDto } from './catalog/item.responses.js';
import { ERROR_STATUS } from './errors.js';
import type { EventType } from './event-contract.js';
import { EVENT_PAGE, EventOf, type EventPage, type EventResponseDto, StockEventData } from './events/events.responses.js';
import { ConflictDetailsDto, ErrorResponseDto, RateLimitedResponseDto } from './http/error.responses.js';
import { ApiBoolean, ApiInteger, type FailureCode, type Failures } from './http/openapi-decorators.js';
import { AllocatedResponseDto, AllocationCancelledResponseDto, AllocationExpiredResponseDto, PackedResponseDto } from './inventory/allocation.responses.js';
import { ExpectationCancelledResponseDto, ExpectationShippedResponseDto, ExpectedResponseDto } from './inventory/expectation.responses.js';
import {
  CountedResponseDto,
  HeldResponseDto,
  IssuedResponseDto,
  MovedResponseDto,
  ReceivedResponseDto,
  ReleasedResponseDto,
} from './inventory/inventory.responses.js';

type OperationObject = NonNullable<OpenAPIObject['paths'][string]['get']>;
type ResponseObject = OperationObject['responses'][string];

export const OPENAPI_JSON_PATH = 'api/v1/openapi.json';
export const DOCS_PATH = 'api/docs';

/*
 * The feed's schemas name the answers of the operations the events describe
 * (a stock event's data is its operation's answer and more; an item event's,
 * the Item). They are put together here, at the edge, the one layer that may
 * import both the feed and the features that publish events; GET /Events
 * refers to the page by its name (EVENT_PAGE).
 */
const EVENTS: Array<[EventType, Type<object> | Array<Type<object>>, string]> = [
  [
    'stock.received',
    [StockEventData(ReceivedResponseDto, 'StockReceivedData'), StockEventData(ReceivedResponseDto, 'StockReceivedAgainstExpectationData', { document: 'expectationId' })],
    'StockReceivedEvent',
  ],
  ['stock.issued', [StockEventData(IssuedResponseDto, 'StockIssuedData'), StockEventData(IssuedResponseDto, 'StockIssuedFromAllocationData', { document: 'allocationId' })], 'StockIssuedEvent'],
  ['stock.moved', StockEventData(MovedResponseDto, 'StockMovedData'), 'StockMovedEvent'],
  ['stock.held', StockEventData(HeldResponseDto, 'StockHeldData'), 'StockHeldEvent'],
  ['stock.released', StockEventData(ReleasedResponseDto, 'StockReleasedData'), 'StockReleasedEvent'],
  ['stock.counted', StockEventData(CountedResponseDto, 'StockCountedData'), 'StockCountedEvent'],
  ['stock.allocated', StockEventData(AllocatedResponseDto, 'StockAllocatedData'), 'StockAllocatedEvent'],
  ['stock.packed', StockEventData(PackedResponseDto, 'StockPackedData'), 'StockPackedEvent'],
  ['allocation.cancelled', StockEventData(AllocationCancelledResponseDto, 'AllocationCancelledData'), 'AllocationCancelledEvent'],
  ['allocation.expired', StockEventData(AllocationExpiredResponseDto, 'AllocationExpiredData', { byService: true }), 'AllocationExpiredEvent'],
  ['stock.expected', StockEventData(ExpectedResponseDto, 'StockExpectedData'), 'StockExpectedEvent'],
  ['expectation.shipped', StockEventData(ExpectationShippedResponseDto, 'ExpectationShippedData'), 'ExpectationShippedEvent'],
  ['expectation.cancelled', StockEventData(ExpectationCancelledResponseDto, 'ExpectationCancelledData'), 'ExpectationCancelledEvent'],
  ['item.created', ItemResponseDto, 'ItemCreatedEvent'],
  ['item.updated', ItemResponseDto, 'ItemUpdatedEvent'],
  ['item.discontinued', ItemResponseDto, 'ItemDiscontinuedEvent'],
];

/** GET /Events: the events after `after`, in seq order; `next` is the after of the next request. */
@ApiSchema({ name: EVENT_PAGE })
@ApiExtraModels(...EVENTS.map(([type, data, name]) => EventOf(type, data, name)))
export class EventPageResponseDto implements EventPage {
  @ApiProperty({ type: 'array', items: { oneOf: EVENTS.map(([, , name]) => ({ $ref: `#/components/schemas/${name}` })) } }) value: EventResponseDto[];
  @ApiInteger({ description: 'The seq of the last event sent, or after when none was: the after of the next request' }) next: number;
  @ApiBoolean() hasMore: boolean;
}

/** OpenAPI 3 document generated from the routes served, and its browsable page (no auth). */
export function setupOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Inventory and Item Catalog API')
    .setDescription('Item catalog, lots, stock levels and inventory transactions for ERP connectors.')
    .setVersion('v1')
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    // Relative: the service that serves this document (paths carry the /api/v1 prefix; /health is outside it).
    .addServer('/', 'The service serving this document')
    .addTag('Token', 'OAuth 2.0 client credentials: bearer tokens for every other /api/v1 route')
    .addTag('Items', 'The item catalog: create, update, discontinue and look up items')
    .addTag('Inventory', 'Lots, stock levels, the ledger, and Receive / Move / Issue')
    .addTag('Events', 'The feed of committed changes of stock and items, in commit order')
    .addTag('Health', 'Liveness and database check for load balancers and monitors')
    // Tokens are opaque (DECISIONS "Authentication"), not the JWT that addBearerAuth assumes by default.
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'Access token from POST /api/v1/Token' })
    // The scheme POST /Token names (@ApiBasicAuth); without it the document refers to an undeclared scheme.
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'POST /api/v1/Token: client id as user, secret as password (or both as form or JSON fields)' })
    .build();
  // The failure bodies are components even where no decorator names them: documentFailures refers to them.
  // The feed's page is one too: GET /Events names it (EVENT_PAGE).
  const extraModels = [ErrorResponseDto, RateLimitedResponseDto, ConflictDetailsDto, EventPageResponseDto];
  SwaggerModule.setup(DOCS_PATH, app, () => closeResponseSchemas(documentFailures(SwaggerModule.createDocument(app, config, { extraModels }))), {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
  });
}

/**
 * An answer has exactly the fields its response class declares, and the
 * document says so: every component schema a response refers to, directly or
 * through another component, gets `additionalProperties: false` (no
 * `@nestjs/swagger` decorator can set it on a class: `@ApiSchema` takes a
 * name and a description only). Request bodies are left open: the validation
 * pipe strips fields it does not know rather than refusing them. Inline
 * schemas are left as written: the narrowing half of an error response's
 * `allOf` must not refuse the fields of `Error` it does not repeat.
 */
export function closeResponseSchemas(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Record<string, unknown>>;
  const closed = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      const name = ref.slice(ref.lastIndexOf('/') + 1);
      if (closed.has(name) || !schemas[name]) return;
      closed.add(name);
      if (schemas[name].properties && schemas[name].additionalProperties === undefined) schemas[name].additionalProperties = false;
      return visit(schemas[name]);
    }
    Object.values(node).forEach(visit);
  };
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item)) if (op && typeof op === 'object' && 'responses' in op) visit(op.responses);
  }
  return document;
}

/**
 * The one place where failures become documented responses (DECISIONS
 * "Operating it": every status a route can answer, with its error codes).
 * An operation's failures are those its decorators declare (`ApiFailures`:
 * access, idempotency, the route's own) and those its shape implies:
 * - every request: `bad_request` when the HTTP layer cannot read it;
 * - a body: `payload_too_large`; a body the validation pipe checks (a DTO,
 *   i.e. a named schema): more `bad_request` causes and `validation_error`;
 * - query parameters (all DTOs, all validated): `validation_error`.
 * They are grouped by status, each response naming its codes in its
 * description and in its schema (`error` narrowed to them), so a generated
 * client has a type per status. A response a route documents itself wins.
 * Operations that name no security scheme are public and say so (`security: []`).
 */
export function documentFailures(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = item[method];
      if (op) documentOperation(op);
    }
  }
  return document;
}

function documentOperation(op: OperationObject): void {
  const failures = new Map<FailureCode, string[]>();
  const add = (code: FailureCode, when: string) => failures.set(code, [...(failures.get(code) ?? []), when]);
  add('bad_request', 'the HTTP layer cannot read the request (a broken request line or headers, malformed JSON)');
  const body = op.requestBody && 'content' in op.requestBody ? Object.values(op.requestBody.content) : [];
  if (body.some((media) => media.schema !== undefined && '$ref' in media.schema)) {
    add('bad_request', 'the body is not a JSON object, or nests deeper than 32 levels');
    add('validation_error', 'a body field fails validation');
  }
  if (op.parameters?.some((p) => 'in' in p && p.in === 'query')) add('validation_error', 'a query parameter fails validation');
  if (body.length) add('payload_too_large', 'the body is over 1 MiB');
  const extensions = op as unknown as Record<string, Failures>;
  for (const key of Object.keys(op).filter((k) => k.startsWith('x-failures-'))) {
    for (const [code, when] of Object.entries(extensions[key])) add(code as FailureCode, when!);
    delete extensions[key];
  }

  const byStatus = new Map<number, FailureCode[]>();
  for (const code of failures.keys()) {
    const status = code === 'rate_limited' ? 429 : ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = codes.map((code) => `\`${code}\`: ${failures.get(code)!.join('; ')}.`).join('\n\n');
    op.responses[status] ??= status === 429 ? rateLimited(description) : errorResponse(status, codes as Exclude<FailureCode, 'rate_limited'>[], description);
  }
  // The rest, on any route: refused by Node's HTTP parser, or unexpected. Narrowed too, so that a
  // client can tell every documented status apart by `statusCode`.
  op.responses.default ??= errorResponse(
    OTHER_FAILURES.map((code) => ERROR_STATUS[code]),
    OTHER_FAILURES,
    'Any other failure, on any route: 408 `request_timeout` (headers too slow), 431 `request_header_fields_too_large` (request line and headers over 16 KiB), 500 `internal_error`.',
  );
  op.security ??= [];
}

const OTHER_FAILURES = ['request_timeout', 'request_header_fields_too_large', 'internal_error'] as const;

/**
 * The Error body, its `statusCode` and `error` narrowed to these statuses and
 * codes; a 409's `details` to ConflictDetails (DECISIONS "Conflicts"), with
 * the `Retry-After` its retryable reasons send.
 */
function errorResponse(status: number | number[], codes: readonly string[], description: string): ResponseObject {
  const statuses = Array.isArray(status) ? status : [status];
  const conflict = statuses.length === 1 && statuses[0] === ERROR_STATUS.conflict;
  const narrowed = {
    type: 'object',
    required: ['statusCode', 'error', ...(conflict ? ['details'] : [])],
    properties: {
      statusCode: { type: 'integer', enum: statuses },
      error: { type: 'string', enum: [...codes] },
      ...(conflict ? { details: { $ref: getSchemaPath(ConflictDetailsDto) } } : {}),
    },
  };
  const headers = conflict ? { 'Retry-After': { description: 'Seconds to wait before retrying: sent with `request_in_progress` and `concurrent_change` only', schema: { type: 'integer' } } } : undefined;
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: { allOf: [{ $ref: getSchemaPath(ErrorResponseDto) }, narrowed] } } } };
}

function rateLimited(description: string): ResponseObject {
  return {
    description,
    headers: { 'Retry-After': { description: 'Seconds until a request is accepted again', schema: { type: 'integer' } } },
    content: { 'application/json': { schema: { $ref: getSchemaPath(RateLimitedResponseDto) } } },
  };
}
