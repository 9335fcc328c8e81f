/*
 * Assumptions where the contract is silent
 * ----------------------------------------
 * The contract (EXTENSIONS "Every stock state the spec names", with DECISIONS
 * and the spec for the general rules) leaves these open; this spec takes the
 * choice that matches what the rest of the API does for a similar case. The
 * implementation may align with them or change them here, in one place.
 *
 *  1. `received` on an expectation is what was received against it so far;
 *     while it is open, what is left (units − received) counts in `onOrder`
 *     (stage `ordered`) or `aSN` (stage `shipped`). Its value after a receipt
 *     beyond what was left is not assumed, only that the expectation is done.
 *  2. An unknown expectation id in a path (Ship, Cancel, GET /Inventory/Expectation/{id})
 *     is 404 `not_found`, like GET /Item/<partNo>; a non-numeric `wid` in
 *     GET /Inventory/Expectations/{wid} is 404, as for lots.
 *  3. An expectation of a warehouse outside the caller's scope, named by its
 *     id (Ship, Cancel and GET by id), answers exactly as an id that names
 *     none: 404 "No expectation <id>.", so that ids tell nothing of other
 *     warehouses. A `wid` the request names is still 403 whether or not it
 *     exists (the spec's rule), checked after the permission and the body.
 *  4. `expectationId` on a Receive is a referenced thing in the body, like
 *     `itemID`: one that does not exist, or belongs to another item or
 *     warehouse than the Receive's `itemID`/`wid`, is 400 `validation_error`
 *     on `expectationId`.
 *  5. A state conflict on an expectation that is no longer open (Ship, Cancel
 *     or a Receive against a `done` or `cancelled` one) is 409 `conflict` with
 *     a new reason `expectation_closed`, details `{reason, expectationId, state}`
 *     (a new row in the conflict table, like `item_discontinued` for an item).
 *  6. Ship answers 200 `{status:"shipped", expectation}` and Cancel 200
 *     `{status:"cancelled", expectation}` (as Expect answers
 *     `{status:"expected", expectation}`); a Receive against an expectation
 *     answers as a plain Receive does (`{status:"received", recNo, lot}`).
 *  7. A stock-level row shows an item that has an open expectation in the
 *     warehouse even before the item had any lot there (else its `onOrder`
 *     would be visible nowhere).
 *  8. `due` is any datetime (past ones too), echoed in ISO 8601 UTC, null when
 *     not sent; an unparsable one is a `validation_error` on `due`. A `stage`
 *     other than `ordered`/`shipped` is a `validation_error` on `stage`.
 *  9. Unknown body fields are ignored and never stored, as everywhere: sending
 *     `received`, `state` or `id` to Expect changes nothing.
 * 10. List filters as for allocations: `itemID` (an unknown one gives an empty
 *     list), `reference` (the test's references are no prefix of each other)
 *     and `state` (`open`, `done`, `cancelled`; another value is a
 *     `validation_error` on `state`); without `state`, every state is listed;
 *     the default page size is 25; the order is only assumed deterministic.
 * 11. Batch ops: `expect` takes Expect's body; `shipExpectation` and
 *     `cancelExpectation` take `{expectationId}`; `receive` takes Receive's body
 *     with `expectationId`. Each result is its endpoint's answer; a
 *     `shipExpectation` of an unknown expectation fails the batch with the
 *     endpoint's 404 (message suffixed ` (operations[i])`).
 * 12. Events: `stock.expected` carries what every stock event carries (the
 *     answer plus itemID, partNo, reasonCode (null: Expect has none),
 *     reference (the request's), clientId, levels); `expectation.shipped` and
 *     `expectation.cancelled` carry the expectation as `data.expectation` and
 *     the `levels` after it; `levels` rows carry `committed`, `packed`,
 *     `onOrder` and `aSN` beside `inStock`, `onHold`, `available`. The Receive
 *     event names the expectation as `data.expectationId`.
 * 13. Expecting units of a discontinued item is not tested (the contract says
 *     nothing of it).
 */
import request from 'supertest';
import { ALL_SECURITY_IDS, SecurityId } from '../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import {
  cancelExpectation,
  type Doc,
  documentOf,
  expectUnits,
  getExpectation,
  givenExpectation,
  idsOf,
  ISO_DATETIME,
  shipExpectation,
  uniqueReference,
} from './support/documents.js';
import { eventsAfter, lastSeq } from './support/events.js';
import { batch, expectLedgerConsistent, givenStock, receive, stockOf } from './support/inventory.js';
import { cursorOf, follow, getPage, withParams } from './support/pages.js';

const EXPECTATION_FIELDS = ['id', 'itemID', 'partNo', 'wid', 'reference', 'units', 'received', 'stage', 'state', 'due', 'created', 'modified'];
const STOCK_FIELDS = ['partNo', 'shortID', 'available', 'inStock', 'onOrder', 'onHold', 'committed', 'packed', 'aSN'];
const ENVELOPE = ['value', 'totalCount', 'page', 'pageSize', 'pageCount', 'hasMore'];
/** The answer for an expectation id that names none, or one the caller may not see (Caller.sees). */
const notFound = (id: number | string) => ({ statusCode: 404, error: 'not_found', message: `No expectation ${id}.`, details: null });
const OUT_OF_SCOPE = { statusCode: 403, error: 'forbidden', message: "Warehouse is outside the client's authorized scope.", details: null };
const NO_PERMISSION = { statusCode: 403, error: 'forbidden', message: 'Insufficient permissions.', details: null };
/** An expectation id that no test creates. */
const NO_SUCH_ID = 999_999_999;
const DUE = '2027-03-01T12:00:00.000Z';

describe(`Expectations (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  /** A new item with `units` in stock in warehouse 1 (none: no lot at all). */
  const stockedItem = async (units = 5) => {
    const { shortID } = await givenItem(t, admin.bearer);
    if (units > 0) await givenStock(t, admin.bearer, { itemID: shortID, units });
    return shortID;
  };
  const partNoOf = async (shortID: string) => (await request(t.http).get(`/api/v1/Item?key=${shortID}`).set('Authorization', admin.bearer)).body.partNo as number;
  const levelOf = async (itemID: string, wid = 1) => (await stockOf(t, admin.bearer, itemID, wid))!;
  const expectationOf = (id: Doc['id']) => documentOf(t, admin.bearer, 'Expectation', id);
  const closed = (expectationId: Doc['id'], state: string) => ({ reason: 'expectation_closed', expectationId, state });
  const validationFields = (res: request.Response) => ({ status: res.status, error: res.body.error, fields: Object.keys(res.body.details ?? {}) });

  describe('Expect', () => {
    it('expects units: 201 {status, expectation} with every field; stage ordered (the default) counts in onOrder, shipped in aSN; available unchanged', async () => {
      const itemID = await stockedItem(5);
      const partNo = await partNoOf(itemID);
      const reference = uniqueReference('PO');
      const res = await expectUnits(t, admin.bearer, { itemID, units: 10, reference, due: DUE });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['status', 'expectation']);
      expect(res.body.status).toBe('expected');
      const expectation = res.body.expectation;
      expect(Object.keys(expectation)).toEqual(EXPECTATION_FIELDS);
      expect(expectation).toMatchObject({ itemID, partNo, wid: 1, reference, units: 10, received: 0, stage: 'ordered', state: 'open', due: DUE });
      expect(expectation.created).toMatch(ISO_DATETIME);
      expect(expectation.modified).toMatch(ISO_DATETIME);
      expect(Math.abs(Date.now() - Date.parse(expectation.created))).toBeLessThan(60_000);
      const level = await levelOf(itemID);
      expect(Object.keys(level)).toEqual(STOCK_FIELDS);
      expect(level).toEqual({ partNo, shortID: itemID, available: 5, inStock: 5, onOrder: 10, onHold: 0, committed: 0, packed: 0, aSN: 0 });
      expect(await expectationOf(expectation.id)).toEqual(expectation);
      const inTransit = await givenExpectation(t, admin.bearer, { itemID, units: 2.5, stage: 'shipped' });
      expect(inTransit).toMatchObject({ units: 2.5, received: 0, stage: 'shipped', state: 'open', due: null });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 5, onOrder: 10, aSN: 2.5, available: 5 });
      await givenExpectation(t, admin.bearer, { itemID, units: 0.0001, stage: 'ordered', due: '2020-01-01T00:00:00Z' });
      expect(await levelOf(itemID)).toMatchObject({ onOrder: 10.0001, aSN: 2.5 });
    });

    it('shows a stock-level row for an item expected before it ever had a lot', async () => {
      const itemID = await stockedItem(0);
      await givenExpectation(t, admin.bearer, { itemID, units: 7 });
      expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 0, onOrder: 7, aSN: 0, available: 0 });
    });

    it('validates the body: units > 0 with at most 4 decimals, reference 1–64 characters, stage and due, a known item', async () => {
      const itemID = await stockedItem(5);
      const reference = uniqueReference('PO');
      for (const [body, field] of [
        [{ units: 0 }, 'units'],
        [{ units: -1 }, 'units'],
        [{ units: 1.00001 }, 'units'],
        [{ units: '1' }, 'units'],
        [{ units: undefined }, 'units'],
        [{ reference: undefined }, 'reference'],
        [{ reference: '' }, 'reference'],
        [{ reference: 'P'.repeat(65) }, 'reference'],
        [{ stage: 'arrived' }, 'stage'],
        [{ due: 'soon' }, 'due'],
        [{ itemID: 'NO-SUCH-ITEM' }, 'itemID'],
        [{ wid: undefined }, 'wid'],
      ] as const) {
        const res = await expectUnits(t, admin.bearer, { itemID, units: 1, reference, ...body });
        expect({ body, ...validationFields(res) }).toEqual({ body, status: 400, error: 'validation_error', fields: [field] });
      }
      expect(await levelOf(itemID)).toMatchObject({ onOrder: 0, aSN: 0 });
      expect((await givenExpectation(t, admin.bearer, { itemID, units: 1, reference: 'P'.repeat(64) })).reference).toBe('P'.repeat(64));
    });

    it('ignores unknown fields and never stores them (received, state, id included), and reads field names in any case', async () => {
      const itemID = await stockedItem(5);
      const reference = uniqueReference('PO');
      const res = await expectUnits(t, admin.bearer, { ItemID: itemID, UNITS: 3, Reference: reference, Stage: 'shipped', colour: 'red', received: 3, state: 'done', id: NO_SUCH_ID });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.expectation)).toEqual(EXPECTATION_FIELDS);
      expect(res.body.expectation).toMatchObject({ itemID, units: 3, reference, stage: 'shipped', received: 0, state: 'open' });
      expect(res.body.expectation.id).not.toBe(NO_SUCH_ID);
      expect(await levelOf(itemID)).toMatchObject({ onOrder: 0, aSN: 3 });
    });
  });

  describe('Ship', () => {
    it('moves what is left from onOrder to aSN: 200 {status, expectation} with stage shipped', async () => {
      const itemID = await stockedItem(5);
      const e = await givenExpectation(t, admin.bearer, { itemID, units: 10 });
      await receive(t, admin.bearer, { itemID, units: 4, expectationId: e.id }).expect(201);
      expect(await levelOf(itemID)).toMatchObject({ inStock: 9, onOrder: 6, aSN: 0 });
      const res = await shipExpectation(t, admin.bearer, e.id);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['status', 'expectation']);
      expect(res.body).toMatchObject({ status: 'shipped', expectation: { id: e.id, units: 10, received: 4, stage: 'shipped', state: 'open' } });
      expect(await expectationOf(e.id)).toMatchObject({ stage: 'shipped', state: 'open' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 9, onOrder: 0, aSN: 6, available: 9 });
      await receive(t, admin.bearer, { itemID, units: 6, expectationId: e.id }).expect(201);
      expect(await expectationOf(e.id)).toMatchObject({ received: 10, state: 'done' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 15, onOrder: 0, aSN: 0 });
      expect((await shipExpectation(t, admin.bearer, e.id)).body).toMatchObject({ statusCode: 409, error: 'conflict', details: closed(e.id, 'done') });
    });
  });

  describe('Receive against an expectation', () => {
    it('receives as usual and lowers what is left; done when nothing is left; a receipt beyond it closes it and the excess is simply received', async () => {
      const itemID = await stockedItem(5);
      const e = await givenExpectation(t, admin.bearer, { itemID, units: 10 });
      const first = await receive(t, admin.bearer, { itemID, units: 4, expectationId: e.id, spot: 'DOCK' });
      expect(first.status).toBe(201);
      expect(Object.keys(first.body)).toEqual(['status', 'recNo', 'lot']);
      expect(first.body).toMatchObject({ status: 'received', lot: { units: 4, spot: 'DOCK', wID: 1, shortID: itemID } });
      expect(await expectationOf(e.id)).toMatchObject({ units: 10, received: 4, state: 'open' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 9, onOrder: 6, available: 9 });
      await receive(t, admin.bearer, { itemID, units: 6, expectationId: e.id }).expect(201);
      expect(await expectationOf(e.id)).toMatchObject({ received: 10, state: 'done' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 15, onOrder: 0 });

      const f = await givenExpectation(t, admin.bearer, { itemID, units: 5 });
      const beyond = await receive(t, admin.bearer, { itemID, units: 8, expectationId: f.id });
      expect(beyond.status).toBe(201);
      expect(beyond.body.lot.units).toBe(8);
      expect(await expectationOf(f.id)).toMatchObject({ state: 'done' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 23, onOrder: 0, aSN: 0 });

      // Against a done expectation: refused, nothing received.
      expect((await receive(t, admin.bearer, { itemID, units: 1, expectationId: e.id })).body).toMatchObject({ statusCode: 409, error: 'conflict', details: closed(e.id, 'done') });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 23 });
      // A plain Receive leaves expectations alone.
      const g = await givenExpectation(t, admin.bearer, { itemID, units: 2 });
      await receive(t, admin.bearer, { itemID, units: 3 }).expect(201);
      expect(await expectationOf(g.id)).toMatchObject({ received: 0, state: 'open' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 26, onOrder: 2 });
    });

    it('lowers aSN when the expectation is shipped', async () => {
      const itemID = await stockedItem(5);
      const e = await givenExpectation(t, admin.bearer, { itemID, units: 3, stage: 'shipped' });
      await receive(t, admin.bearer, { itemID, units: 1, expectationId: e.id }).expect(201);
      expect(await levelOf(itemID)).toMatchObject({ inStock: 6, onOrder: 0, aSN: 2 });
      expect(await expectationOf(e.id)).toMatchObject({ received: 1, stage: 'shipped', state: 'open' });
    });

    it('refuses an expectationId of another item, of another warehouse, or of no expectation, as a validation_error on expectationId', async () => {
      const itemID = await stockedItem(5);
      const other = await stockedItem(5);
      const e = await givenExpectation(t, admin.bearer, { itemID, units: 10 });
      for (const body of [
        { itemID: other, expectationId: e.id },
        { itemID, wid: 2, expectationId: e.id },
        { itemID, expectationId: NO_SUCH_ID },
      ]) {
        const res = await receive(t, admin.bearer, { units: 1, ...body });
        expect({ body, ...validationFields(res) }).toEqual({ body, status: 400, error: 'validation_error', fields: ['expectationId'] });
      }
      expect(await expectationOf(e.id)).toMatchObject({ received: 0, state: 'open' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 5, onOrder: 10 });
      expect(await levelOf(other)).toMatchObject({ inStock: 5, onOrder: 0 });
      expect(await stockOf(t, admin.bearer, itemID, 2)).toBeUndefined();
    });

    it('20 concurrent Receives of 1 against an expectation of 10: exactly 10 received, the rest refused once it is done; onOrder never below 0', async () => {
      const itemID = await stockedItem(5);
      const e = await givenExpectation(t, admin.bearer, { itemID, units: 10 });
      const answers = await Promise.all(Array.from({ length: 20 }, () => receive(t, admin.bearer, { itemID, units: 1, expectationId: e.id })));
      const statuses = answers.map((r) => r.status);
      // The tenth receipt leaves nothing: the expectation is done, and a Receive against it is refused.
      expect({ received: statuses.filter((s) => s === 201).length, refused: statuses.filter((s) => s === 409).length }).toEqual({ received: 10, refused: 10 });
      for (const r of answers.filter((a) => a.status === 409)) expect(r.body.details).toEqual(closed(e.id, 'done'));
      expect(await expectationOf(e.id)).toMatchObject({ received: 10, state: 'done' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 15, onOrder: 0, aSN: 0 });
      await expectLedgerConsistent(t);
    });
  });

  describe('Cancel', () => {
    it('drops what is left from onOrder or aSN; state cancelled; a second Cancel, a Ship or a Receive against it is a conflict', async () => {
      const itemID = await stockedItem(5);
      const e = await givenExpectation(t, admin.bearer, { itemID, units: 10 });
      await receive(t, admin.bearer, { itemID, units: 3, expectationId: e.id }).expect(201);
      const s = await givenExpectation(t, admin.bearer, { itemID, units: 4, stage: 'shipped' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 8, onOrder: 7, aSN: 4 });
      const res = await cancelExpectation(t, admin.bearer, e.id);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['status', 'expectation']);
      expect(res.body).toMatchObject({ status: 'cancelled', expectation: { id: e.id, units: 10, received: 3, state: 'cancelled' } });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 8, onOrder: 0, aSN: 4 });
      await cancelExpectation(t, admin.bearer, s.id).expect(200);
      expect(await levelOf(itemID)).toMatchObject({ inStock: 8, onOrder: 0, aSN: 0, available: 8 });
      expect(await expectationOf(s.id)).toMatchObject({ state: 'cancelled' });
      const again = await cancelExpectation(t, admin.bearer, e.id);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ statusCode: 409, error: 'conflict', details: closed(e.id, 'cancelled') });
      expect(typeof again.body.message).toBe('string');
      expect((await shipExpectation(t, admin.bearer, e.id)).body).toMatchObject({ statusCode: 409, details: closed(e.id, 'cancelled') });
      expect((await receive(t, admin.bearer, { itemID, units: 1, expectationId: e.id })).body).toMatchObject({ statusCode: 409, details: closed(e.id, 'cancelled') });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 8, onOrder: 0, aSN: 0 });
    });
  });

  describe('permissions, read-only accounts and warehouse scope', () => {
    let itemID: string;
    beforeAll(async () => {
      itemID = await stockedItem(5);
    });
    const openExpectation = async (wid = 1) => (await givenExpectation(t, admin.bearer, { itemID, units: 1, wid })).id;
    /** Every expectation route, the SecurityID it needs and a valid request (made fresh each time, on an open expectation). */
    const ROUTES: Array<{ name: string; permission: SecurityId; write: boolean; send: (bearer: string) => Promise<request.Response> }> = [
      { name: 'POST /Inventory/Expect', permission: SecurityId.PositiveAdjustment, write: true, send: (b) => expectUnits(t, b, { itemID, units: 1, reference: uniqueReference('PO') }) },
      { name: 'POST /Inventory/Expectations/{id}/Ship', permission: SecurityId.PositiveAdjustment, write: true, send: async (b) => shipExpectation(t, b, await openExpectation()) },
      { name: 'POST /Inventory/Expectations/{id}/Cancel', permission: SecurityId.PositiveAdjustment, write: true, send: async (b) => cancelExpectation(t, b, await openExpectation()) },
      { name: 'GET /Inventory/Expectations', permission: SecurityId.ItemMasterList, write: false, send: (b) => request(t.http).get('/api/v1/Inventory/Expectations').set('Authorization', b) },
      { name: 'GET /Inventory/Expectations/1', permission: SecurityId.ItemMasterList, write: false, send: (b) => request(t.http).get('/api/v1/Inventory/Expectations/1').set('Authorization', b) },
      { name: 'GET /Inventory/Expectation/{id}', permission: SecurityId.ItemMasterList, write: false, send: async (b) => getExpectation(t, b, await openExpectation()) },
    ];

    it.each(ROUTES)('$name: 403 "Insufficient permissions." without its SecurityID, success with only it', async ({ permission, send }) => {
      const without = await givenClient(t, { permissions: ALL_SECURITY_IDS.filter((p) => p !== permission), warehouses: [1, 2] });
      expect((await send(without.bearer)).body).toEqual(NO_PERMISSION);
      const only = await givenClient(t, { permissions: [permission], warehouses: [1, 2] });
      const allowed = await send(only.bearer);
      expect(allowed.status < 300 ? 'allowed' : `${allowed.status} ${allowed.text}`).toBe('allowed');
    });

    it.each(ROUTES)('$name: a read-only account may read but not write', async ({ write, send }) => {
      const readOnly = await givenClient(t, { readOnly: true, warehouses: [1, 2] });
      const res = await send(readOnly.bearer);
      if (write) expect(res.body).toEqual({ statusCode: 403, error: 'forbidden', message: 'Account is read-only.', details: null });
      else expect(res.status).toBe(200);
    });

    it('refuses a client scoped to warehouse 1 everything of warehouse 2 (403 whether or not the warehouse exists; an expectation there is 404, as one that does not exist), and lists only its own', async () => {
      const one = await givenClient(t, { warehouses: [1] });
      const inTwo = await openExpectation(2);
      const inOne = await openExpectation(1);
      expect((await expectUnits(t, one.bearer, { itemID, wid: 2, units: 1, reference: uniqueReference('PO') })).body).toEqual(OUT_OF_SCOPE);
      expect((await shipExpectation(t, one.bearer, inTwo)).body).toEqual(notFound(inTwo));
      expect((await cancelExpectation(t, one.bearer, inTwo)).body).toEqual(notFound(inTwo));
      expect((await getExpectation(t, one.bearer, inTwo)).body).toEqual(notFound(inTwo));
      expect((await receive(t, one.bearer, { itemID, wid: 2, units: 1, expectationId: inTwo })).body).toEqual(OUT_OF_SCOPE);
      for (const wid of [2, 99]) expect((await request(t.http).get(`/api/v1/Inventory/Expectations/${wid}`).set('Authorization', one.bearer)).body).toEqual(OUT_OF_SCOPE);
      expect(await expectationOf(inTwo)).toMatchObject({ state: 'open', stage: 'ordered', received: 0 });
      const mine = await request(t.http).get(`/api/v1/Inventory/Expectations?itemID=${itemID}&pageSize=250`).set('Authorization', one.bearer);
      expect(mine.status).toBe(200);
      expect(new Set(mine.body.value.map((e: Doc) => e.wid))).toEqual(new Set([1]));
      expect(mine.body.value.map((e: Doc) => e.id)).toContain(inOne);
    });

    it('checks in order: permission, then the body, then the scope, then the expectation named', async () => {
      const one = await givenClient(t, { warehouses: [1] });
      const noReceive = await givenClient(t, { permissions: [SecurityId.ItemMasterList, SecurityId.NegativeAdjustment], warehouses: [1, 2] });
      expect((await expectUnits(t, noReceive.bearer, { itemID, units: 0, wid: 7 })).body).toEqual(NO_PERMISSION);
      expect((await shipExpectation(t, noReceive.bearer, NO_SUCH_ID)).body).toEqual(NO_PERMISSION);
      expect(validationFields(await expectUnits(t, one.bearer, { itemID, units: 0, wid: 2, reference: uniqueReference('PO') }))).toEqual({ status: 400, error: 'validation_error', fields: ['units'] });
      expect((await expectUnits(t, one.bearer, { itemID: 'NO-SUCH-ITEM', units: 1, wid: 2, reference: uniqueReference('PO') })).body).toEqual(OUT_OF_SCOPE);
      for (const res of [await shipExpectation(t, admin.bearer, NO_SUCH_ID), await cancelExpectation(t, admin.bearer, NO_SUCH_ID), await getExpectation(t, admin.bearer, NO_SUCH_ID), await getExpectation(t, admin.bearer, 'abc')]) {
        expect({ status: res.status, error: res.body.error }).toEqual({ status: 404, error: 'not_found' });
      }
    });
  });

  describe('lists', () => {
    it('lists expectations in the page envelope, by warehouse or over the caller’s, filtered by itemID, reference and state; one by id', async () => {
      const x = await stockedItem(5);
      const y = await stockedItem(5);
      const e1 = await givenExpectation(t, admin.bearer, { itemID: x, units: 1 });
      const e2 = await givenExpectation(t, admin.bearer, { itemID: x, units: 2, wid: 2, stage: 'shipped' });
      const e3 = await givenExpectation(t, admin.bearer, { itemID: y, units: 3 });
      await cancelExpectation(t, admin.bearer, e3.id).expect(200);
      const e4 = await givenExpectation(t, admin.bearer, { itemID: x, units: 4 });
      await receive(t, admin.bearer, { itemID: x, units: 4, expectationId: e4.id }).expect(201);
      const list = (query: string) => idsOf(t, admin.bearer, `/api/v1/Inventory/Expectations${query}`);
      const sorted = (ids: Array<Doc['id']>) => [...ids].sort();

      const all = await request(t.http).get(`/api/v1/Inventory/Expectations?itemID=${x}`).set('Authorization', admin.bearer);
      expect(all.status).toBe(200);
      expect(Object.keys(all.body)).toEqual(ENVELOPE);
      expect(all.body).toMatchObject({ totalCount: 3, page: 1, pageSize: 25, pageCount: 1, hasMore: false });
      expect(all.headers['x-total-count']).toBe('3');
      expect(sorted(all.body.value.map((e: Doc) => e.id))).toEqual(sorted([e1.id, e2.id, e4.id]));
      for (const e of all.body.value as Doc[]) expect(Object.keys(e)).toEqual(EXPECTATION_FIELDS);
      expect(await list(`/2?itemID=${x}`)).toEqual([e2.id]);
      expect(await list(`/1?itemID=${y}`)).toEqual([e3.id]);
      expect(await list(`?reference=${e3.reference}`)).toEqual([e3.id]);
      expect(await list(`?reference=${e3.reference}&state=open`)).toEqual([]);
      expect(sorted(await list(`?itemID=${x}&state=open`))).toEqual(sorted([e1.id, e2.id]));
      expect(await list(`?itemID=${x}&state=done`)).toEqual([e4.id]);
      expect(await list(`?itemID=${y}&state=cancelled`)).toEqual([e3.id]);
      expect(await list('?itemID=NO-SUCH-ITEM')).toEqual([]);
      const badState = await request(t.http).get('/api/v1/Inventory/Expectations?state=shipped').set('Authorization', admin.bearer);
      expect(validationFields(badState)).toEqual({ status: 400, error: 'validation_error', fields: ['state'] });
      expect((await request(t.http).get('/api/v1/Inventory/Expectations/abc').set('Authorization', admin.bearer)).status).toBe(404);

      const one = await getExpectation(t, admin.bearer, e4.id);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(all.body.value.find((e: Doc) => e.id === e4.id));
      expect(one.body).toMatchObject({ itemID: x, units: 4, received: 4, state: 'done' });
    });

    it('pages by Link cursors: every expectation once, in the order of one large page, and back by prev; a cursor not its own is refused', async () => {
      const itemID = await stockedItem(5);
      // A second lot: the lot list has a next page whose cursor is offered to the expectation list.
      await givenStock(t, admin.bearer, { itemID, units: 1 });
      for (let i = 0; i < 7; i++) await givenExpectation(t, admin.bearer, { itemID, units: 1 });
      const base = `/api/v1/Inventory/Expectations?itemID=${itemID}`;
      const whole = (await getPage(t, admin.bearer, `${base}&pageSize=250`)).rows.map((r) => r.id);
      expect(whole).toHaveLength(7);
      const forward = await follow(t, admin.bearer, `${base}&pageSize=3`, 'next');
      expect(forward.map((p) => [p.page, p.rows.length, p.totalCount])).toEqual([[1, 3, 7], [2, 3, 7], [3, 1, 7]]);
      expect(forward.flatMap((p) => p.rows.map((r) => r.id))).toEqual(whole);
      for (const p of forward.slice(0, -1)) expect(cursorOf(p.links.next)).toEqual(expect.any(String));
      const back = await follow(t, admin.bearer, forward[2].url, 'prev');
      expect([...back].reverse().flatMap((p) => p.rows.map((r) => r.id))).toEqual(whole);
      const inOne = await follow(t, admin.bearer, `/api/v1/Inventory/Expectations/1?itemID=${itemID}&pageSize=3`, 'next');
      expect(inOne.flatMap((p) => p.rows.map((r) => r.id))).toEqual(whole);
      // A filtered list's links keep its filters: walked by next, it is the filtered list.
      const open = await follow(t, admin.bearer, `${base}&state=open&pageSize=2`, 'next');
      expect(open.flatMap((p) => p.rows.map((r) => r.id))).toEqual(whole);
      const byReference = (await getPage(t, admin.bearer, `${base}&pageSize=250`)).rows[0].reference as string;
      expect((await follow(t, admin.bearer, `/api/v1/Inventory/Expectations?reference=${byReference}&pageSize=1`, 'next')).flatMap((p) => p.rows.map((r) => r.id))).toEqual([whole[0]]);

      const refused = async (url: string) => {
        const res = await request(t.http).get(url).set('Authorization', admin.bearer);
        expect({ url, ...validationFields(res) }).toEqual({ url, status: 400, error: 'validation_error', fields: ['cursor'] });
      };
      await refused(withParams(forward[0].links.next, { cursor: 'not-a-cursor' }));
      const lots = (await getPage(t, admin.bearer, `/api/v1/Inventory?itemID=${itemID}&pageSize=1`)).links.next;
      await refused(withParams(forward[0].links.next, { cursor: cursorOf(lots) }));
      await refused(withParams(forward[0].links.next, { state: 'open' }));
    });
  });

  describe('Idempotency-Key', () => {
    it('replays a keyed Expect, Ship, Receive against it and Cancel without doing them twice; the same key with another body is 422', async () => {
      const itemID = await stockedItem(5);
      const key = `expect-${process.pid}-${Date.now()}`;
      const body = { itemID, units: 10, reference: uniqueReference('PO') };
      const first = await expectUnits(t, admin.bearer, body, key);
      const again = await expectUnits(t, admin.bearer, body, key);
      expect([first.status, again.status]).toEqual([201, 201]);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await idsOf(t, admin.bearer, `/api/v1/Inventory/Expectations?reference=${body.reference}`)).toEqual([first.body.expectation.id]);
      expect(await levelOf(itemID)).toMatchObject({ onOrder: 10 });
      const reused = await expectUnits(t, admin.bearer, { ...body, units: 9 }, key);
      expect(reused.body).toEqual({ statusCode: 422, error: 'idempotency_key_reused', message: 'This Idempotency-Key was used with another request body.', details: null });

      const id = first.body.expectation.id;
      const receipts = [await receive(t, admin.bearer, { itemID, units: 4, expectationId: id }, `${key}-rcv`), await receive(t, admin.bearer, { itemID, units: 4, expectationId: id }, `${key}-rcv`)];
      expect(receipts.map((r) => r.status)).toEqual([201, 201]);
      expect(receipts[1].body).toEqual(receipts[0].body);
      expect(await expectationOf(id)).toMatchObject({ received: 4 });
      const ships = [await shipExpectation(t, admin.bearer, id, `${key}-ship`), await shipExpectation(t, admin.bearer, id, `${key}-ship`)];
      expect(ships.map((r) => r.status)).toEqual([200, 200]);
      expect(ships[1].headers['idempotent-replayed']).toBe('true');
      expect(ships[1].body).toEqual(ships[0].body);
      expect(await levelOf(itemID)).toMatchObject({ inStock: 9, onOrder: 0, aSN: 6 });
      const cancels = [await cancelExpectation(t, admin.bearer, id, `${key}-cancel`), await cancelExpectation(t, admin.bearer, id, `${key}-cancel`)];
      expect(cancels.map((r) => r.status)).toEqual([200, 200]);
      expect(cancels[1].headers['idempotent-replayed']).toBe('true');
      expect(cancels[1].body).toEqual(cancels[0].body);
      expect(await levelOf(itemID)).toMatchObject({ inStock: 9, onOrder: 0, aSN: 0 });
    });
  });

  describe('events', () => {
    it('records stock.expected, expectation.shipped and expectation.cancelled with the levels after each; a Receive against an expectation names it; refusals and replays record nothing', async () => {
      const itemID = await stockedItem(5);
      const partNo = await partNoOf(itemID);
      const from = await lastSeq(t);
      const reference = uniqueReference('PO');
      const expected = await expectUnits(t, admin.bearer, { itemID, units: 10, reference }, `events-${reference}`).expect(201);
      await expectUnits(t, admin.bearer, { itemID, units: 10, reference }, `events-${reference}`).expect(201);
      await expectUnits(t, admin.bearer, { itemID, units: 0, reference }).expect(400);
      const id = expected.body.expectation.id;
      const received = await receive(t, admin.bearer, { itemID, units: 4, expectationId: id, reference }).expect(201);
      const shipped = await shipExpectation(t, admin.bearer, id).expect(200);
      const cancelled = await cancelExpectation(t, admin.bearer, id).expect(200);
      await cancelExpectation(t, admin.bearer, id).expect(409);

      const events = (await eventsAfter(t, admin.bearer, from)).filter((e) => e.data.itemID === itemID);
      expect(events.map((e) => e.type)).toEqual(['stock.expected', 'stock.received', 'expectation.shipped', 'expectation.cancelled']);
      const level = (inStock: number, onOrder: number, aSN: number) => expect.objectContaining({ wid: 1, inStock, onHold: 0, committed: 0, packed: 0, onOrder, aSN, available: inStock });
      const [x, r, s, c] = events.map((e) => e.data);
      expect(x).toEqual({ ...expected.body, itemID, partNo, reasonCode: null, reference, clientId: admin.clientId, levels: [level(5, 10, 0)] });
      expect(r).toEqual({ ...received.body, itemID, partNo, reasonCode: 1, reference, clientId: admin.clientId, expectationId: id, levels: [level(9, 6, 0)] });
      expect(s).toMatchObject({ expectation: { ...shipped.body.expectation, stage: 'shipped' }, itemID, partNo });
      expect(s.levels).toEqual([level(9, 0, 6)]);
      expect(c).toMatchObject({ expectation: { ...cancelled.body.expectation, state: 'cancelled' }, itemID, partNo });
      expect(c.levels).toEqual([level(9, 0, 0)]);
    });
  });

  describe('Batch', () => {
    it('runs expect, shipExpectation, receive against an expectation and cancelExpectation in order, each answered as its endpoint would, one event each', async () => {
      const itemID = await stockedItem(5);
      const a = await givenExpectation(t, admin.bearer, { itemID, units: 10 });
      const b = await givenExpectation(t, admin.bearer, { itemID, units: 3 });
      const from = await lastSeq(t);
      const reference = uniqueReference('PO');
      const res = await batch(t, admin.bearer, [
        { op: 'expect', itemID, wid: 1, units: 4, reference },
        { op: 'shipExpectation', expectationId: a.id },
        { op: 'receive', itemID, wid: 1, units: 6, reasonCode: 1, expectationId: a.id },
        { op: 'cancelExpectation', expectationId: b.id },
      ]);
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['expected', 'shipped', 'received', 'cancelled']);
      expect(res.body.results[0].expectation).toMatchObject({ itemID, units: 4, reference, stage: 'ordered', state: 'open' });
      expect(res.body.results[1].expectation).toMatchObject({ id: a.id, stage: 'shipped' });
      expect(res.body.results[2].lot).toMatchObject({ units: 6 });
      expect(res.body.results[3].expectation).toMatchObject({ id: b.id, state: 'cancelled' });
      expect(await expectationOf(a.id)).toMatchObject({ received: 6, stage: 'shipped', state: 'open' });
      expect(await levelOf(itemID)).toMatchObject({ inStock: 11, onOrder: 4, aSN: 4 });
      const events = (await eventsAfter(t, admin.bearer, from)).filter((e) => e.data.itemID === itemID);
      expect(events.map((e) => [e.seq, e.type])).toEqual([
        [from + 1, 'stock.expected'],
        [from + 2, 'expectation.shipped'],
        [from + 3, 'stock.received'],
        [from + 4, 'expectation.cancelled'],
      ]);
      expect(events[2].data.expectationId).toEqual(a.id);
    });

    it('is all or nothing: a refused expectation operation is named by its index, with its endpoint’s status and reason', async () => {
      const itemID = await stockedItem(5);
      const gone = await givenExpectation(t, admin.bearer, { itemID, units: 1 });
      await cancelExpectation(t, admin.bearer, gone.id).expect(200);
      const before = await levelOf(itemID);
      const expectOp = { op: 'expect', itemID, wid: 1, units: 4, reference: uniqueReference('PO') };

      const closedOne = await batch(t, admin.bearer, [expectOp, { op: 'shipExpectation', expectationId: gone.id }]);
      expect(closedOne.status).toBe(409);
      expect(closedOne.body.details).toEqual({ ...closed(gone.id, 'cancelled'), operation: 1 });
      expect(closedOne.body.message).toMatch(/ \(operations\[1\]\)$/);
      const receipt = await batch(t, admin.bearer, [expectOp, { op: 'receive', itemID, wid: 1, units: 1, reasonCode: 1, expectationId: gone.id }]);
      expect(receipt.body.details).toEqual({ ...closed(gone.id, 'cancelled'), operation: 1 });
      const unknown = await batch(t, admin.bearer, [expectOp, { op: 'shipExpectation', expectationId: NO_SUCH_ID }]);
      expect({ status: unknown.status, error: unknown.body.error }).toEqual({ status: 404, error: 'not_found' });
      expect(unknown.body.message).toMatch(/ \(operations\[1\]\)$/);
      const invalid = await batch(t, admin.bearer, [expectOp, { ...expectOp, reference: undefined }, { ...expectOp, stage: 'arrived' }]);
      expect(invalid.status).toBe(400);
      expect(Object.keys(invalid.body.details).sort()).toEqual(['operations[1].reference', 'operations[2].stage']);
      const lister = await givenClient(t, { permissions: [SecurityId.ItemMasterList, SecurityId.NegativeAdjustment], warehouses: [1, 2] });
      expect((await batch(t, lister.bearer, [{ op: 'issue', itemID, wid: 1, units: 1, reasonCode: 2 }, { op: 'cancelExpectation', expectationId: gone.id }])).body).toMatchObject({
        statusCode: 403,
        message: 'Insufficient permissions. (operations[1])',
      });
      expect(await levelOf(itemID)).toEqual(before);
      expect(await idsOf(t, admin.bearer, `/api/v1/Inventory/Expectations?reference=${expectOp.reference}`)).toEqual([]);
    });
  });
});
