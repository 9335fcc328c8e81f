import request from 'supertest';
import { ALL_SECURITY_IDS, type SecurityId } from '../../src/auth/security-id.js';
import type { TestApp } from '../app.factory.js';
import { givenClient, type TestClient } from './auth.js';
import { type Doc, documentOf, idsOf } from './documents.js';
import { stockOf } from './inventory.js';
import { cursorOf, follow, getPage, withParams } from './pages.js';

/**
 * The checks the allocation and expectation specs make alike, as tests they
 * declare (`it…`) from a table of the document's own: its routes, how one is
 * made, cancelled and completed. Each spec keeps what only its document does.
 */

export const ENVELOPE = ['value', 'totalCount', 'page', 'pageSize', 'pageCount', 'hasMore'];
export const OUT_OF_SCOPE = { statusCode: 403, error: 'forbidden', message: "Warehouse is outside the client's authorized scope.", details: null };
export const NO_PERMISSION = { statusCode: 403, error: 'forbidden', message: 'Insufficient permissions.', details: null };
/** The answer for a document id that names none, or one the caller may not see (Caller.sees). */
export const notFound = (kind: 'Allocation' | 'Expectation', id: number | string) => ({ statusCode: 404, error: 'not_found', message: `No ${kind.toLowerCase()} ${id}.`, details: null });
/** An endpoint's refusal as a Batch gives it for its operation `i`: the message names the operation (details as the endpoint's: null here). */
export const atOperation = (answer: { message: string; details: null }, i: number) => ({ ...answer, message: `${answer.message} (operations[${i}])` });
/** The refusal of a body's `field` naming a document that is not of its item and warehouse (or is none), under `at` (`operations[i].` in a Batch). */
export const namesNone = (field: 'allocationId' | 'expectationId', id: number | string, wid: number, at = '') => ({
  statusCode: 400,
  error: 'validation_error',
  message: 'Model validation failed.',
  details: { [`${at}${field}`]: [`${field} ${id} names no ${field === 'allocationId' ? 'allocation' : 'expectation'} of this itemID in warehouse ${wid}`] },
});
export const validationFields = (res: request.Response) => ({ status: res.status, error: res.body.error, fields: Object.keys(res.body.details ?? {}) });

/** What a spec is running with, once its beforeAll has run: the app and its admin client (every permission, warehouses 1 and 2). */
export type Running = () => { t: TestApp; admin: TestClient };

/** A route of a document: the SecurityID it needs, whether it writes, and a valid request with the bearer given (made fresh each time). */
export interface DocumentRoute {
  name: string;
  permission: SecurityId;
  write: boolean;
  send: (bearer: string) => Promise<request.Response>;
}

/** For each route: 403 "Insufficient permissions." without its SecurityID and success with only it; a read-only account may read but not write. */
export function itChecksEachRoutesAccess(routes: DocumentRoute[], running: Running): void {
  it.each(routes)('$name: 403 "Insufficient permissions." without its SecurityID, success with only it', async ({ permission, send }) => {
    const { t } = running();
    const without = await givenClient(t, { permissions: ALL_SECURITY_IDS.filter((p) => p !== permission), warehouses: [1, 2] });
    expect((await send(without.bearer)).body).toEqual(NO_PERMISSION);
    const only = await givenClient(t, { permissions: [permission], warehouses: [1, 2] });
    const allowed = await send(only.bearer);
    expect(allowed.status < 300 ? 'allowed' : `${allowed.status} ${allowed.text}`).toBe('allowed');
  });

  it.each(routes)('$name: a read-only account may read but not write', async ({ write, send }) => {
    const readOnly = await givenClient(running().t, { readOnly: true, warehouses: [1, 2] });
    const res = await send(readOnly.bearer);
    if (write) expect(res.body).toEqual({ statusCode: 403, error: 'forbidden', message: 'Account is read-only.', details: null });
    else expect(res.status).toBe(200);
  });
}

/** One kind of stock document, as the shared tests make and read it. */
export interface DocumentCase {
  /** GET /Inventory/{kind}/{id} reads one, GET /Inventory/{kind}s[/{wid}] lists them. */
  kind: 'Allocation' | 'Expectation';
  /** The fields of one, in their order. */
  fields: string[];
  /** Makes one as the admin: `units` of the item in warehouse `wid` (1 unless given), with a fresh reference and the body's `more` fields. */
  given: (itemID: string, units: number, wid?: number, more?: Record<string, unknown>) => Promise<Doc>;
}

/** What the scope test does with a document: on an item that can take one in warehouses 1 and 2. */
export interface ScopeCase extends DocumentCase {
  itemID: () => string;
  /**
   * Every request a client scoped to warehouse 1 sends about warehouse 2, by
   * name, with its answer: the making of one there and a request naming
   * warehouse 2 are OUT_OF_SCOPE; each change of `inTwo` (one there) and the
   * read of it name it by its id alone, and are `notFound` as an id that names
   * none.
   */
  refusals: (bearer: string, inTwo: Doc['id']) => Array<[string, () => Promise<request.Response>, unknown]>;
  /** What `inTwo` still shows after them. */
  untouched: Record<string, unknown>;
}

/** A client scoped to warehouse 1 is refused every request about warehouse 2 (403 whether or not the warehouse exists; a document there is 404), which changes nothing, and lists only its own. */
export function itRefusesAnotherWarehouse(c: ScopeCase, running: Running): void {
  const name = c.kind.toLowerCase();
  it(`refuses a client scoped to warehouse 1 everything of warehouse 2 (403 whether or not the warehouse exists; an ${name} there is 404, as one that does not exist), and lists only its own`, async () => {
    const { t, admin } = running();
    const itemID = c.itemID();
    const one = await givenClient(t, { warehouses: [1] });
    const inTwo = (await c.given(itemID, 1, 2)).id;
    const inOne = (await c.given(itemID, 1, 1)).id;
    const before = await stockOf(t, admin.bearer, itemID, 2);
    for (const [request, send, answer] of c.refusals(one.bearer, inTwo)) expect({ request, body: (await send()).body }).toEqual({ request, body: answer });
    for (const wid of [2, 99]) expect((await request(t.http).get(`/api/v1/Inventory/${c.kind}s/${wid}`).set('Authorization', one.bearer)).body).toEqual(OUT_OF_SCOPE);
    expect(await stockOf(t, admin.bearer, itemID, 2)).toEqual(before);
    expect(await documentOf(t, admin.bearer, c.kind, inTwo)).toMatchObject({ state: 'open', ...c.untouched });
    const mine = await request(t.http).get(`/api/v1/Inventory/${c.kind}s?itemID=${itemID}&pageSize=250`).set('Authorization', one.bearer);
    expect(mine.status).toBe(200);
    expect(new Set(mine.body.value.map((d: Doc) => d.wid))).toEqual(new Set([1]));
    expect(mine.body.value.map((d: Doc) => d.id)).toContain(inOne);
  });
}

/** What the list tests do with a document. */
export interface ListCase extends DocumentCase {
  /** A new item that documents can be made of in warehouses 1 and 2. */
  item: () => Promise<string>;
  /** A new item with two lots in warehouse 1 (the lot list then has a second page, whose cursor is offered to the document list). */
  itemWithTwoLots: () => Promise<string>;
  /** Cancels the document (200). */
  cancel: (id: Doc['id']) => Promise<unknown>;
  /** The body fields of the one the list test makes in warehouse 2, beside its item and units. */
  second?: Record<string, unknown>;
  /** Ships or receives all of the document's `units` against it, which makes it done; `field` is what counts them. */
  complete: { field: 'shipped' | 'received'; send: (itemID: string, id: Doc['id'], units: number) => Promise<unknown> };
}

/** The list in the page envelope, over the caller's warehouses or one, filtered by itemID, reference and state; and one by id. */
export function itListsDocuments(c: ListCase, running: Running): void {
  const plural = `${c.kind.toLowerCase()}s`;
  it(`lists ${plural} in the page envelope, by warehouse or over the caller’s, filtered by itemID, reference and state; one by id`, async () => {
    const { t, admin } = running();
    const x = await c.item();
    const y = await c.item();
    const d1 = await c.given(x, 1);
    const d2 = await c.given(x, 2, 2, c.second);
    const d3 = await c.given(y, 3);
    await c.cancel(d3.id);
    const d4 = await c.given(x, 4);
    await c.complete.send(x, d4.id, 4);
    const base = `/api/v1/Inventory/${c.kind}s`;
    const list = (query: string) => idsOf(t, admin.bearer, `${base}${query}`);
    const sorted = (ids: Array<Doc['id']>) => [...ids].sort();

    const all = await request(t.http).get(`${base}?itemID=${x}`).set('Authorization', admin.bearer);
    expect(all.status).toBe(200);
    expect(Object.keys(all.body)).toEqual(ENVELOPE);
    expect(all.body).toMatchObject({ totalCount: 3, page: 1, pageSize: 25, pageCount: 1, hasMore: false });
    expect(all.headers['x-total-count']).toBe('3');
    expect(sorted(all.body.value.map((d: Doc) => d.id))).toEqual(sorted([d1.id, d2.id, d4.id]));
    for (const d of all.body.value as Doc[]) expect(Object.keys(d)).toEqual(c.fields);
    expect(await list(`/2?itemID=${x}`)).toEqual([d2.id]);
    expect(await list(`/1?itemID=${y}`)).toEqual([d3.id]);
    expect(await list(`?reference=${d3.reference}`)).toEqual([d3.id]);
    expect(await list(`?reference=${d3.reference}&state=open`)).toEqual([]);
    expect(sorted(await list(`?itemID=${x}&state=open`))).toEqual(sorted([d1.id, d2.id]));
    expect(await list(`?itemID=${x}&state=done`)).toEqual([d4.id]);
    expect(await list(`?itemID=${y}&state=cancelled`)).toEqual([d3.id]);
    expect(await list('?itemID=NO-SUCH-ITEM')).toEqual([]);
    const badState = await request(t.http).get(`${base}?state=shipped`).set('Authorization', admin.bearer);
    expect(validationFields(badState)).toEqual({ status: 400, error: 'validation_error', fields: ['state'] });
    expect((await request(t.http).get(`${base}/abc`).set('Authorization', admin.bearer)).status).toBe(404);

    const one = await request(t.http).get(`/api/v1/Inventory/${c.kind}/${d4.id}`).set('Authorization', admin.bearer);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(all.body.value.find((d: Doc) => d.id === d4.id));
    expect(one.body).toMatchObject({ itemID: x, units: 4, [c.complete.field]: 4, state: 'done' });
  });

  it(`pages by Link cursors: every ${c.kind.toLowerCase()} once, in the order of one large page, and back by prev; a cursor not its own is refused`, async () => {
    const { t, admin } = running();
    const itemID = await c.itemWithTwoLots();
    for (let i = 0; i < 7; i++) await c.given(itemID, 1);
    const base = `/api/v1/Inventory/${c.kind}s?itemID=${itemID}`;
    const whole = (await getPage(t, admin.bearer, `${base}&pageSize=250`)).rows.map((r) => r.id);
    expect(whole).toHaveLength(7);
    const forward = await follow(t, admin.bearer, `${base}&pageSize=3`, 'next');
    expect(forward.map((p) => [p.page, p.rows.length, p.totalCount])).toEqual([[1, 3, 7], [2, 3, 7], [3, 1, 7]]);
    expect(forward.flatMap((p) => p.rows.map((r) => r.id))).toEqual(whole);
    for (const p of forward.slice(0, -1)) expect(cursorOf(p.links.next)).toEqual(expect.any(String));
    const back = await follow(t, admin.bearer, forward[2].url, 'prev');
    expect([...back].reverse().flatMap((p) => p.rows.map((r) => r.id))).toEqual(whole);
    // Per warehouse too.
    const inOne = await follow(t, admin.bearer, `/api/v1/Inventory/${c.kind}s/1?itemID=${itemID}&pageSize=3`, 'next');
    expect(inOne.flatMap((p) => p.rows.map((r) => r.id))).toEqual(whole);
    // A filtered list's links keep its filters: walked by next, it is the filtered list.
    const open = await follow(t, admin.bearer, `${base}&state=open&pageSize=2`, 'next');
    expect(open.flatMap((p) => p.rows.map((r) => r.id))).toEqual(whole);
    const byReference = (await getPage(t, admin.bearer, `${base}&pageSize=250`)).rows[0].reference as string;
    expect((await follow(t, admin.bearer, `/api/v1/Inventory/${c.kind}s?reference=${byReference}&pageSize=1`, 'next')).flatMap((p) => p.rows.map((r) => r.id))).toEqual([whole[0]]);

    const refused = async (url: string) => {
      const res = await request(t.http).get(url).set('Authorization', admin.bearer);
      expect({ url, ...validationFields(res) }).toEqual({ url, status: 400, error: 'validation_error', fields: ['cursor'] });
    };
    await refused(withParams(forward[0].links.next, { cursor: 'not-a-cursor' }));
    const lots = (await getPage(t, admin.bearer, `/api/v1/Inventory?itemID=${itemID}&pageSize=1`)).links.next;
    await refused(withParams(forward[0].links.next, { cursor: cursorOf(lots) }));
    await refused(withParams(forward[0].links.next, { state: 'open' }));
  });
}

/**
 * Sends a keyed request twice (`send` sets the same Idempotency-Key each
 * time): both answer `status`, the first done and the second replayed with
 * the same body. Gives the first answer.
 */
export async function expectReplayed(status: number, send: () => Promise<request.Response>): Promise<request.Response> {
  const first = await send();
  const again = await send();
  expect([first.status, again.status]).toEqual([status, status]);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.body).toEqual(first.body);
  return first;
}

/** The answer to a key sent again with another body. */
export const KEY_REUSED = { statusCode: 422, error: 'idempotency_key_reused', message: 'This Idempotency-Key was used with another request body.', details: null };
