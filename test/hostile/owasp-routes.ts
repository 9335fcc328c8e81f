import request from 'supertest';
import { SecurityId } from '../../src/auth/security-id.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../app.factory.js';

/**
 * The route tables of owasp.hostile-spec.ts and the answers it expects: adding
 * a route to the service is one line here, and every OWASP check that walks a
 * table covers it (API9 fails until it is added).
 */

/** What the requests below refer to: an item with stock in warehouses 1 to 3 (and held units at spot H of warehouse 1), and one to discontinue. */
export interface Fixture {
  shortID: string;
  partNo: number;
  /** An item that DELETE /Item/<shortID> may discontinue again and again. */
  gone: string;
  /** An open allocation of the item in warehouse 1 with units enough for every Pack and Issue against it in the suite. */
  allocation: number;
  /** An open expectation of the item in warehouse 1 with units enough for every Receive against it (Ship may repeat: it changes nothing the second time). */
  expectation: number;
  /** A fresh open allocation (1 unit) or expectation of the item in warehouse 1, made by a client holding every SecurityID: what a Cancel takes. */
  allocate: () => Promise<number>;
  expect: () => Promise<number>;
}

export const get = (t: TestApp, bearer: string, path: string) => request(t.http).get(`/api/v1/${path}`).set('Authorization', bearer);
export const post = (t: TestApp, bearer: string, path: string, body: object) =>
  request(t.http).post(`/api/v1/${path}`).set('Authorization', bearer).send(body);

export const tokenRequest = (t: TestApp, clientId: string, secret: string) =>
  request(t.http).post('/api/v1/Token').type('form').send({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret });

export const basicTokenRequest = (t: TestApp, clientId: string, secret: string) =>
  request(t.http).post('/api/v1/Token').auth(clientId, secret).type('form').send({ grant_type: 'client_credentials' });

/** Another instance of the service with these settings (on its own database), for the describe that calls this. */
export function anotherApp(options: TestAppOptions): { app: TestApp } {
  const ctx = {} as { app: TestApp };
  beforeAll(async () => {
    ctx.app = await startTestApp(options);
  });
  afterAll(() => ctx.app?.close());
  return ctx;
}

/** The stock-level row of an item in one warehouse, found among the newest items (the support helper reads the oldest 250). */
export async function levelOf(t: TestApp, bearer: string, shortID: string, wid: number): Promise<Record<string, unknown> | undefined> {
  const res = await get(t, bearer, `Inventory/StockLevels/${wid}?sort=partNo&direction=DESC&pageSize=250`);
  return (res.body.value as Array<{ shortID: string }>).find((r) => r.shortID === shortID);
}

/** Runs `fn` for 0..count-1, `width` at a time. */
export async function inBatches(count: number, width: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i += width) await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => fn(i + j)));
}

let seq = 0;
const next = () => `${process.pid}-${++seq}`;

export interface Route {
  name: string;
  /** The operation in the OpenAPI document: `<method> <path>`. */
  op: string;
  /** The SecurityID the request below needs, or those of which any one will do. */
  permission: SecurityId | SecurityId[];
  /** What the document says the route takes, when it is more than this request needs (a batch takes 95, 88 or 15; its operations decide). */
  securityIds?: SecurityId[];
  /** A valid request, repeatable, that succeeds for a client holding `permission` and warehouse 1. */
  send: (t: TestApp, bearer: string, f: Fixture) => PromiseLike<request.Response>;
}

/** Every route of spec "Permissions and scope per action" (and the extensions: Transactions, Hold, Release, Count, Batch, Events). */
export const ROUTES: Route[] = [
  { name: 'GET /Item', op: 'get /api/v1/Item', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Item') },
  { name: 'GET /Item?key=', op: 'get /api/v1/Item', permission: SecurityId.ItemMasterList, send: (t, b, f) => get(t, b, `Item?key=${f.shortID}`) },
  { name: 'GET /Item?Category=', op: 'get /api/v1/Item', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Item?Category=0') },
  { name: 'GET /Item/All', op: 'get /api/v1/Item/All', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Item/All') },
  { name: 'GET /Item/<partNo>', op: 'get /api/v1/Item/{item}', permission: SecurityId.ItemMasterList, send: (t, b, f) => get(t, b, `Item/${f.partNo}`) },
  { name: 'GET /Inventory', op: 'get /api/v1/Inventory', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Inventory') },
  { name: 'GET /Inventory/<wid>', op: 'get /api/v1/Inventory/{wid}', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Inventory/1') },
  { name: 'GET /Inventory/StockLevels', op: 'get /api/v1/Inventory/StockLevels', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Inventory/StockLevels') },
  { name: 'GET /Inventory/StockLevels/<wid>', op: 'get /api/v1/Inventory/StockLevels/{wid}', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Inventory/StockLevels/1') },
  { name: 'GET /Inventory/Transactions', op: 'get /api/v1/Inventory/Transactions', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Inventory/Transactions') },
  { name: 'GET /Events', op: 'get /api/v1/Events', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Events?types=stock.*') },
  {
    name: 'POST /Inventory/Receive', op: 'post /api/v1/Inventory/Receive', permission: SecurityId.PositiveAdjustment,
    send: (t, b, f) => post(t, b, 'Inventory/Receive', { itemID: f.shortID, units: 1, wid: 1, reasonCode: 1 }),
  },
  {
    name: 'POST /Inventory/Move', op: 'post /api/v1/Inventory/Move', permission: SecurityId.LocateMoveUnits,
    send: (t, b, f) => post(t, b, 'Inventory/Move', { itemID: f.shortID, units: 1, wid: 1, toSpot: `M-${next()}` }),
  },
  {
    name: 'POST /Inventory/Issue', op: 'post /api/v1/Inventory/Issue', permission: SecurityId.NegativeAdjustment,
    send: (t, b, f) => post(t, b, 'Inventory/Issue', { itemID: f.shortID, units: 1, wid: 1, reasonCode: 2 }),
  },
  {
    name: 'POST /Inventory/Hold', op: 'post /api/v1/Inventory/Hold', permission: SecurityId.LocateMoveUnits,
    send: (t, b, f) => post(t, b, 'Inventory/Hold', { itemID: f.shortID, units: 1, wid: 1, spot: 'A', reasonCode: 3 }),
  },
  {
    name: 'POST /Inventory/Release', op: 'post /api/v1/Inventory/Release', permission: SecurityId.LocateMoveUnits,
    send: (t, b, f) => post(t, b, 'Inventory/Release', { itemID: f.shortID, units: 1, wid: 1, spot: 'H', reasonCode: 4 }),
  },
  {
    // A count of a selector nothing matches, as found: no change, so 95 and 88 may each make it.
    name: 'POST /Inventory/Count', op: 'post /api/v1/Inventory/Count', permission: [SecurityId.PositiveAdjustment, SecurityId.NegativeAdjustment],
    send: (t, b, f) => post(t, b, 'Inventory/Count', { itemID: f.shortID, wid: 1, counted: 0, serial: 'OWASP-UNCOUNTED', reasonCode: 5 }),
  },
  {
    // One count of a selector nothing matches: allowed to 95 and 88; a client with only 15 is refused this batch by its operation.
    name: 'POST /Inventory/Batch', op: 'post /api/v1/Inventory/Batch', permission: [SecurityId.PositiveAdjustment, SecurityId.NegativeAdjustment],
    securityIds: [SecurityId.PositiveAdjustment, SecurityId.NegativeAdjustment, SecurityId.LocateMoveUnits],
    send: (t, b, f) => post(t, b, 'Inventory/Batch', { operations: [{ op: 'count', itemID: f.shortID, wid: 1, counted: 0, serial: 'OWASP-UNCOUNTED', reasonCode: 5 }] }),
  },
  {
    name: 'POST /Inventory/Allocate', op: 'post /api/v1/Inventory/Allocate', permission: SecurityId.NegativeAdjustment,
    send: (t, b, f) => post(t, b, 'Inventory/Allocate', { itemID: f.shortID, units: 1, wid: 1, reference: `OWASP-SO-${next()}` }),
  },
  {
    name: 'POST /Inventory/Allocations/<id>/Pack', op: 'post /api/v1/Inventory/Allocations/{id}/Pack', permission: SecurityId.LocateMoveUnits,
    send: (t, b, f) => post(t, b, `Inventory/Allocations/${f.allocation}/Pack`, { units: 1 }),
  },
  {
    name: 'POST /Inventory/Allocations/<id>/Cancel', op: 'post /api/v1/Inventory/Allocations/{id}/Cancel', permission: SecurityId.NegativeAdjustment,
    send: async (t, b, f) => post(t, b, `Inventory/Allocations/${await f.allocate()}/Cancel`, {}),
  },
  {
    name: 'POST /Inventory/Issue allocationId', op: 'post /api/v1/Inventory/Issue', permission: SecurityId.NegativeAdjustment,
    send: (t, b, f) => post(t, b, 'Inventory/Issue', { itemID: f.shortID, units: 1, wid: 1, reasonCode: 2, allocationId: f.allocation }),
  },
  { name: 'GET /Inventory/Allocations', op: 'get /api/v1/Inventory/Allocations', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Inventory/Allocations') },
  { name: 'GET /Inventory/Allocations/<wid>', op: 'get /api/v1/Inventory/Allocations/{wid}', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Inventory/Allocations/1?state=open') },
  { name: 'GET /Inventory/Allocation/<id>', op: 'get /api/v1/Inventory/Allocation/{id}', permission: SecurityId.ItemMasterList, send: (t, b, f) => get(t, b, `Inventory/Allocation/${f.allocation}`) },
  {
    name: 'POST /Inventory/Expect', op: 'post /api/v1/Inventory/Expect', permission: SecurityId.PositiveAdjustment,
    send: (t, b, f) => post(t, b, 'Inventory/Expect', { itemID: f.shortID, units: 1, wid: 1, reference: `OWASP-PO-${next()}` }),
  },
  {
    name: 'POST /Inventory/Expectations/<id>/Ship', op: 'post /api/v1/Inventory/Expectations/{id}/Ship', permission: SecurityId.PositiveAdjustment,
    send: (t, b, f) => post(t, b, `Inventory/Expectations/${f.expectation}/Ship`, {}),
  },
  {
    name: 'POST /Inventory/Expectations/<id>/Cancel', op: 'post /api/v1/Inventory/Expectations/{id}/Cancel', permission: SecurityId.PositiveAdjustment,
    send: async (t, b, f) => post(t, b, `Inventory/Expectations/${await f.expect()}/Cancel`, {}),
  },
  {
    name: 'POST /Inventory/Receive expectationId', op: 'post /api/v1/Inventory/Receive', permission: SecurityId.PositiveAdjustment,
    send: (t, b, f) => post(t, b, 'Inventory/Receive', { itemID: f.shortID, units: 1, wid: 1, reasonCode: 1, expectationId: f.expectation }),
  },
  { name: 'GET /Inventory/Expectations', op: 'get /api/v1/Inventory/Expectations', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Inventory/Expectations') },
  { name: 'GET /Inventory/Expectations/<wid>', op: 'get /api/v1/Inventory/Expectations/{wid}', permission: SecurityId.ItemMasterList, send: (t, b) => get(t, b, 'Inventory/Expectations/1?state=open') },
  { name: 'GET /Inventory/Expectation/<id>', op: 'get /api/v1/Inventory/Expectation/{id}', permission: SecurityId.ItemMasterList, send: (t, b, f) => get(t, b, `Inventory/Expectation/${f.expectation}`) },
  { name: 'POST /Item', op: 'post /api/v1/Item', permission: SecurityId.ModifyItemMaster, send: (t, b) => post(t, b, 'Item', { shortID: `OWASP-NEW-${next()}` }) },
  {
    name: 'PUT /Item', op: 'put /api/v1/Item', permission: SecurityId.ModifyItemMaster,
    send: (t, b, f) => request(t.http).put('/api/v1/Item').set('Authorization', b).send({ shortID: f.shortID, description: `edit ${next()}` }),
  },
  {
    name: 'DELETE /Item/<shortID>', op: 'delete /api/v1/Item/{item}', permission: SecurityId.ModifyItemMaster,
    send: (t, b, f) => request(t.http).delete(`/api/v1/Item/${f.gone}`).set('Authorization', b),
  },
];

/**
 * Every place a request names a warehouse (spec rules 1 and 2). `send` names
 * `wid` there; the rest of the request is in scope (warehouse 1) and valid.
 */
export const WAREHOUSE_ROUTES: Array<{ name: string; send: (t: TestApp, bearer: string, wid: number, f: Fixture) => request.Test; operation?: 0 }> = [
  { name: 'GET /Inventory/<wid>', send: (t, b, wid) => get(t, b, `Inventory/${wid}`) },
  { name: 'GET /Inventory/StockLevels/<wid>', send: (t, b, wid) => get(t, b, `Inventory/StockLevels/${wid}`) },
  { name: 'POST /Inventory/Receive wid', send: (t, b, wid, f) => post(t, b, 'Inventory/Receive', { itemID: f.shortID, units: 1, wid, reasonCode: 1 }) },
  { name: 'POST /Inventory/Issue wid', send: (t, b, wid, f) => post(t, b, 'Inventory/Issue', { itemID: f.shortID, units: 1, wid, reasonCode: 2 }) },
  { name: 'POST /Inventory/Move wid', send: (t, b, wid, f) => post(t, b, 'Inventory/Move', { itemID: f.shortID, units: 1, wid, shipToWid: 1 }) },
  { name: 'POST /Inventory/Hold wid', send: (t, b, wid, f) => post(t, b, 'Inventory/Hold', { itemID: f.shortID, units: 1, wid, reasonCode: 3 }) },
  { name: 'POST /Inventory/Release wid', send: (t, b, wid, f) => post(t, b, 'Inventory/Release', { itemID: f.shortID, wid, reasonCode: 4 }) },
  { name: 'POST /Inventory/Count wid', send: (t, b, wid, f) => post(t, b, 'Inventory/Count', { itemID: f.shortID, wid, counted: 1, reasonCode: 5 }) },
  { name: 'POST /Inventory/Batch wid', operation: 0, send: (t, b, wid, f) => post(t, b, 'Inventory/Batch', { operations: [{ op: 'receive', itemID: f.shortID, units: 1, wid, reasonCode: 1 }] }) },
  { name: 'POST /Inventory/Allocate wid', send: (t, b, wid, f) => post(t, b, 'Inventory/Allocate', { itemID: f.shortID, units: 1, wid, reference: `OWASP-SO-${next()}` }) },
  { name: 'POST /Inventory/Expect wid', send: (t, b, wid, f) => post(t, b, 'Inventory/Expect', { itemID: f.shortID, units: 1, wid, reference: `OWASP-PO-${next()}` }) },
  { name: 'GET /Inventory/Allocations/<wid>', send: (t, b, wid) => get(t, b, `Inventory/Allocations/${wid}`) },
  { name: 'GET /Inventory/Expectations/<wid>', send: (t, b, wid) => get(t, b, `Inventory/Expectations/${wid}`) },
  { name: 'POST /Inventory/Batch allocate wid', operation: 0, send: (t, b, wid, f) => post(t, b, 'Inventory/Batch', { operations: [{ op: 'allocate', itemID: f.shortID, units: 1, wid, reference: `OWASP-SO-${next()}` }] }) },
  { name: 'POST /Inventory/Move shipToWid', send: (t, b, wid, f) => post(t, b, 'Inventory/Move', { itemID: f.shortID, units: 1, wid: 1, shipToWid: wid }) },
];

/** Every request that names one lot by its record number (`recno`), in warehouse 1; `held`: it takes held lots only. */
export const RECORD_ROUTES: Array<{ name: string; send: (t: TestApp, bearer: string, recno: number, f: Fixture) => request.Test; held?: true }> = [
  { name: 'POST /Inventory/Issue recno', send: (t, b, recno, f) => post(t, b, 'Inventory/Issue', { itemID: f.shortID, units: 1, wid: 1, reasonCode: 2, recno }) },
  { name: 'POST /Inventory/Hold recno', send: (t, b, recno, f) => post(t, b, 'Inventory/Hold', { itemID: f.shortID, wid: 1, reasonCode: 3, recno }) },
  { name: 'POST /Inventory/Release recno', held: true, send: (t, b, recno, f) => post(t, b, 'Inventory/Release', { itemID: f.shortID, wid: 1, reasonCode: 4, recno }) },
  { name: 'POST /Inventory/Move recno', send: (t, b, recno, f) => post(t, b, 'Inventory/Move', { itemID: f.shortID, units: 1, wid: 1, toSpot: `R-${next()}`, recno }) },
];

/**
 * Every request that names an allocation or expectation by its id (`id`, made
 * in the warehouse the test chooses): `kind` is the document it names.
 */
export const DOCUMENT_ROUTES: Array<{ name: string; kind: 'Allocation' | 'Expectation'; send: (t: TestApp, bearer: string, id: number) => request.Test; operation?: 0 }> = [
  { name: 'POST /Inventory/Allocations/<id>/Pack', kind: 'Allocation', send: (t, b, id) => post(t, b, `Inventory/Allocations/${id}/Pack`, { units: 1 }) },
  { name: 'POST /Inventory/Allocations/<id>/Cancel', kind: 'Allocation', send: (t, b, id) => post(t, b, `Inventory/Allocations/${id}/Cancel`, {}) },
  { name: 'GET /Inventory/Allocation/<id>', kind: 'Allocation', send: (t, b, id) => get(t, b, `Inventory/Allocation/${id}`) },
  { name: 'POST /Inventory/Batch pack', kind: 'Allocation', operation: 0, send: (t, b, id) => post(t, b, 'Inventory/Batch', { operations: [{ op: 'pack', allocationId: id, units: 1 }] }) },
  { name: 'POST /Inventory/Expectations/<id>/Ship', kind: 'Expectation', send: (t, b, id) => post(t, b, `Inventory/Expectations/${id}/Ship`, {}) },
  { name: 'POST /Inventory/Expectations/<id>/Cancel', kind: 'Expectation', send: (t, b, id) => post(t, b, `Inventory/Expectations/${id}/Cancel`, {}) },
  { name: 'GET /Inventory/Expectation/<id>', kind: 'Expectation', send: (t, b, id) => get(t, b, `Inventory/Expectation/${id}`) },
  { name: 'POST /Inventory/Batch cancelExpectation', kind: 'Expectation', operation: 0, send: (t, b, id) => post(t, b, 'Inventory/Batch', { operations: [{ op: 'cancelExpectation', expectationId: id }] }) },
];

/** Methods no route serves on paths that exist (API5 method tampering): each must be 404, never a write. */
export const TAMPERED: Array<[method: 'patch' | 'put' | 'delete' | 'post' | 'get', path: string]> = [
  ['patch', '/api/v1/Item'],
  ['patch', '/api/v1/Item/1'],
  ['delete', '/api/v1/Item'],
  ['put', '/api/v1/Item/1'],
  ['post', '/api/v1/Item/All'],
  ['delete', '/api/v1/Inventory/Receive'],
  ['put', '/api/v1/Inventory/Issue'],
  ['patch', '/api/v1/Inventory/Move'],
  ['put', '/api/v1/Inventory/Hold'],
  ['delete', '/api/v1/Inventory/Count'],
  ['put', '/api/v1/Inventory/Batch'],
  ['delete', '/api/v1/Inventory/Release'],
  ['get', '/api/v1/Inventory/Receive/1'],
  ['post', '/api/v1/Inventory/1'],
  ['delete', '/api/v1/Inventory/1'],
  ['put', '/api/v1/Inventory/StockLevels/1'],
  ['put', '/api/v1/Inventory/Allocate'],
  ['delete', '/api/v1/Inventory/Allocation/1'],
  ['patch', '/api/v1/Inventory/Expectation/1'],
  ['get', '/api/v1/Inventory/Allocations/1/Pack'],
  ['delete', '/api/v1/Token'],
  ['post', '/api/v1/Events'],
  ['delete', '/api/v1/Events'],
  ['post', '/health'],
];

/** Administration exists only in the CLI: none of it is reachable over HTTP. */
export const ADMIN_PATHS = ['/api/v1/Client', '/api/v1/Clients', '/api/v1/Group', '/api/v1/Warehouse', '/api/v1/admin', '/api/v1/Alias', '/admin'];

export const ITEM_FIELDS = ['partNo', 'shortID', 'description', 'category', 'subCategory', 'uOM', 'putUp', 'units', 'dfltOwner', 'created', 'modified', 'discontinued', 'createdBy'];
export const LOT_FIELDS = [
  'recNo', 'partNo', 'shortID', 'description', 'associate', 'warehouse', 'wID', 'spot', 'units', 'received', 'shipped',
  'serial', 'serial2', 'rFIDTag', 'remark', 'hold', 'jobID', 'jobName', 'active',
];
export const STOCK_FIELDS = ['partNo', 'shortID', 'available', 'inStock', 'onOrder', 'onHold', 'committed', 'packed', 'aSN'];
export const TRANSACTION_FIELDS = [
  'id', 'operationId', 'operation', 'created', 'partNo', 'shortID', 'recNo', 'fromRecNo', 'fromWid', 'fromSpot', 'toWid', 'toSpot',
  'units', 'reasonCode', 'reference', 'remark', 'clientId',
];
export const PAGE_FIELDS = ['value', 'totalCount', 'page', 'pageSize', 'pageCount', 'hasMore'];

const forbidden = (message: string) => ({ statusCode: 403, error: 'forbidden', message, details: null });
export const OUT_OF_SCOPE = forbidden("Warehouse is outside the client's authorized scope.");
export const NO_PERMISSION = forbidden('Insufficient permissions.');
export const READ_ONLY = forbidden('Account is read-only.');
export const INVALID_CLIENT = { statusCode: 401, error: 'invalid_client', message: 'Client authentication failed.', details: null };
export const INVALID_TOKEN = { statusCode: 401, error: 'unauthorized', message: 'The access token is invalid.', details: null };
export const notFound = (method: string, path: string) => ({ statusCode: 404, error: 'not_found', message: `No route for ${method.toUpperCase()} ${path}.`, details: null });

/** The security headers (helmet) that every answer must carry, and no X-Powered-By. */
export const hardening = (res: request.Response) => ({
  nosniff: res.headers['x-content-type-options'],
  frameOptions: res.headers['x-frame-options'],
  hsts: res.headers['strict-transport-security'],
  csp: /default-src 'self'/.test(res.headers['content-security-policy'] ?? '') && /frame-ancestors 'self'/.test(res.headers['content-security-policy'] ?? ''),
  // Plain HTTP: upgrading would send a browser that opened the docs by host name to https:// and an empty page.
  upgradesToHttps: /upgrade-insecure-requests/.test(res.headers['content-security-policy'] ?? ''),
  referrer: res.headers['referrer-policy'],
  poweredBy: res.headers['x-powered-by'],
});
export const HARDENED = { nosniff: 'nosniff', frameOptions: 'SAMEORIGIN', hsts: 'max-age=31536000; includeSubDomains', csp: true, upgradesToHttps: false, referrer: 'no-referrer', poweredBy: undefined };

export interface OpenApiDocument {
  paths: Record<string, Record<string, { 'x-security-id'?: number | number[]; security?: Array<Record<string, string[]>> }>>;
  components: { securitySchemes: Record<string, { scheme: string; bearerFormat?: string }> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];

/** `<method> <path>` of every operation in the OpenAPI document, sorted. */
export function documentedOps(doc: OpenApiDocument): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => METHODS.includes(m)).map((m) => `${m} ${path}`)).sort();
}

/**
 * `<method> <path>` of every route Express serves (Nest registers each route
 * there), `:param` written `{param}`, sorted; the OpenAPI document and its
 * docs page left out. A route path that is not a string shows as `?<path>`.
 */
export function servedRoutes(t: TestApp): string[] {
  type Layer = { route?: { path: unknown; methods: Record<string, boolean> } };
  const express = t.app.getHttpAdapter().getInstance() as { router?: { stack: Layer[] }; _router?: { stack: Layer[] } };
  const isDocs = (path: string) => /^\/api\/docs(\/|$)/.test(path) || path === '/api/v1/openapi.json';
  return (express.router ?? express._router)!.stack
    // NestJS 12 answers the excluded paths' other methods (every method Node knows, ACL among them) with its
    // not-found handler, as routes of their own: those are not served.
    .filter(({ route }) => route && !route.methods.acl)
    .flatMap(({ route }) => Object.keys(route!.methods).map((m) => [m, typeof route!.path === 'string' ? route!.path : `?${String(route!.path)}`]))
    .filter(([, path]) => !isDocs(path))
    .map(([m, path]) => `${m} ${path.replace(/:(\w+)/g, '{$1}')}`)
    .sort();
}
