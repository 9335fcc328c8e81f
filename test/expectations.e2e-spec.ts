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
 * 13. Expecting units of a discontinued item is 409 `item_discontinued`
 *     ("… it cannot be expected."), as a Receive of it would be, and changes
 *     nothing; so is an Expect that would take what is expected of an item
 *     in a warehouse past 99999999999.9999 units (409 `stock_bound`).
 */
import request from 'supertest';
import { SecurityId } from '../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import {
  atOperation,
  type DocumentCase,
  type DocumentRoute,
  expectReplayed,
  itChecksEachRoutesAccess,
  itListsDocuments,
  itRefusesAnotherWarehouse,
  KEY_REUSED,
  namesNone,
  NO_PERMISSION,
  notFound,
  OUT_OF_SCOPE,
  type Running,
  validationFields,
} from './support/document-specs.js';
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

const EXPECTATION_FIELDS = ['id', 'itemID', 'partNo', 'wid', 'reference', 'units', 'received', 'stage', 'state', 'due', 'created', 'modified'];
const STOCK_FIELDS = ['partNo', 'shortID', 'available', 'inStock', 'onOrder', 'onHold', 'committed', 'packed', 'aSN'];
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
  const running: Running = () => ({ t, admin });
  /** Expectations, for the checks shared with allocations (support/document-specs.ts). */
  const EXPECTATIONS: DocumentCase = {
    kind: 'Expectation',
    fields: EXPECTATION_FIELDS,
    given: (itemID, units, wid = 1, more = {}) => givenExpectation(t, admin.bearer, { itemID, units, wid, ...more }),
  };

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

  describe('Expect refused', () => {
    it('is 409 item_discontinued for a discontinued item and 409 stock_bound past the bound of what is expected, and changes nothing', async () => {
      const itemID = await stockedItem(5);
      const before = await levelOf(itemID);
      await givenExpectation(t, admin.bearer, { itemID, units: 99999999999.9999 });
      const full = await levelOf(itemID);
      expect(full).toMatchObject({ onOrder: 99999999999.9999 });
      const past = await expectUnits(t, admin.bearer, { itemID, units: 0.0001, reference: uniqueReference('PO') });
      expect({ status: past.status, reason: past.body.details?.reason }).toEqual({ status: 409, reason: 'stock_bound' });
      expect(await levelOf(itemID)).toEqual(full);
      await request(t.http).delete(`/api/v1/Item/${itemID}`).set('Authorization', admin.bearer).expect(200);
      const gone = await expectUnits(t, admin.bearer, { itemID, units: 1, reference: uniqueReference('PO') });
      expect(gone.body).toEqual({ statusCode: 409, error: 'conflict', message: `Item ${itemID} is discontinued; it cannot be expected.`, details: { reason: 'item_discontinued', itemID } });
      expect(await levelOf(itemID)).toEqual(full);
      expect(before).toMatchObject({ onOrder: 0 });
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
    const ROUTES: DocumentRoute[] = [
      { name: 'POST /Inventory/Expect', permission: SecurityId.PositiveAdjustment, write: true, send: (b) => expectUnits(t, b, { itemID, units: 1, reference: uniqueReference('PO') }) },
      { name: 'POST /Inventory/Expectations/{id}/Ship', permission: SecurityId.PositiveAdjustment, write: true, send: async (b) => shipExpectation(t, b, await openExpectation()) },
      { name: 'POST /Inventory/Expectations/{id}/Cancel', permission: SecurityId.PositiveAdjustment, write: true, send: async (b) => cancelExpectation(t, b, await openExpectation()) },
      { name: 'GET /Inventory/Expectations', permission: SecurityId.ItemMasterList, write: false, send: (b) => request(t.http).get('/api/v1/Inventory/Expectations').set('Authorization', b) },
      { name: 'GET /Inventory/Expectations/1', permission: SecurityId.ItemMasterList, write: false, send: (b) => request(t.http).get('/api/v1/Inventory/Expectations/1').set('Authorization', b) },
      { name: 'GET /Inventory/Expectation/{id}', permission: SecurityId.ItemMasterList, write: false, send: async (b) => getExpectation(t, b, await openExpectation()) },
    ];

    itChecksEachRoutesAccess(ROUTES, running);

    itRefusesAnotherWarehouse(
      {
        ...EXPECTATIONS,
        itemID: () => itemID,
        refusals: (bearer, inTwo) => [
          ['Expect', () => expectUnits(t, bearer, { itemID, wid: 2, units: 1, reference: uniqueReference('PO') }), OUT_OF_SCOPE],
          ['Ship', () => shipExpectation(t, bearer, inTwo), notFound('Expectation', inTwo)],
          ['Cancel', () => cancelExpectation(t, bearer, inTwo), notFound('Expectation', inTwo)],
          ['GET by id', () => getExpectation(t, bearer, inTwo), notFound('Expectation', inTwo)],
          ['Receive against it', () => receive(t, bearer, { itemID, wid: 2, units: 1, expectationId: inTwo }), OUT_OF_SCOPE],
          // Named from warehouse 1: the same answer as for an id that names no expectation at all.
          ['Receive against it from warehouse 1', () => receive(t, bearer, { itemID, wid: 1, units: 1, expectationId: inTwo }), namesNone('expectationId', inTwo, 1)],
          ['Receive against an id that names none', () => receive(t, bearer, { itemID, wid: 1, units: 1, expectationId: NO_SUCH_ID }), namesNone('expectationId', NO_SUCH_ID, 1)],
          ['Batch: shipExpectation', () => batch(t, bearer, [{ op: 'shipExpectation', expectationId: inTwo }]), atOperation(notFound('Expectation', inTwo), 0)],
          ['Batch: cancelExpectation', () => batch(t, bearer, [{ op: 'expect', itemID, wid: 1, units: 1, reference: uniqueReference('PO') }, { op: 'cancelExpectation', expectationId: inTwo }]), atOperation(notFound('Expectation', inTwo), 1)],
          ['Batch: receive against it', () => batch(t, bearer, [{ op: 'receive', itemID, wid: 2, units: 1, reasonCode: 1, expectationId: inTwo }]), atOperation(OUT_OF_SCOPE, 0)],
          ['Batch: receive against it from warehouse 1', () => batch(t, bearer, [{ op: 'receive', itemID, wid: 1, units: 1, reasonCode: 1, expectationId: inTwo }]), { ...namesNone('expectationId', inTwo, 1, 'operations[0].'), message: 'Model validation failed. (operations[0])' }],
        ],
        untouched: { stage: 'ordered', received: 0 },
      },
      running,
    );

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
    itListsDocuments(
      {
        ...EXPECTATIONS,
        item: () => stockedItem(5),
        itemWithTwoLots: async () => {
          const itemID = await stockedItem(5);
          await givenStock(t, admin.bearer, { itemID, units: 1 });
          return itemID;
        },
        // The one in warehouse 2 in transit: an open list holds both stages.
        second: { stage: 'shipped' },
        cancel: (id) => cancelExpectation(t, admin.bearer, id).expect(200),
        complete: { field: 'received', send: (itemID, id, units) => receive(t, admin.bearer, { itemID, units, expectationId: id }).expect(201) },
      },
      running,
    );
  });

  describe('Idempotency-Key', () => {
    it('replays a keyed Expect, Ship, Receive against it and Cancel without doing them twice; the same key with another body is 422', async () => {
      const itemID = await stockedItem(5);
      const key = `expect-${process.pid}-${Date.now()}`;
      const body = { itemID, units: 10, reference: uniqueReference('PO') };
      const first = await expectReplayed(201, () => expectUnits(t, admin.bearer, body, key));
      expect(await idsOf(t, admin.bearer, `/api/v1/Inventory/Expectations?reference=${body.reference}`)).toEqual([first.body.expectation.id]);
      expect(await levelOf(itemID)).toMatchObject({ onOrder: 10 });
      const reused = await expectUnits(t, admin.bearer, { ...body, units: 9 }, key);
      expect(reused.body).toEqual(KEY_REUSED);

      const id = first.body.expectation.id;
      await expectReplayed(201, () => receive(t, admin.bearer, { itemID, units: 4, expectationId: id }, `${key}-rcv`));
      expect(await expectationOf(id)).toMatchObject({ received: 4 });
      await expectReplayed(200, () => shipExpectation(t, admin.bearer, id, `${key}-ship`));
      expect(await levelOf(itemID)).toMatchObject({ inStock: 9, onOrder: 0, aSN: 6 });
      await expectReplayed(200, () => cancelExpectation(t, admin.bearer, id, `${key}-cancel`));
      expect(await levelOf(itemID)).toMatchObject({ inStock: 9, onOrder: 0, aSN: 0 });
    });
  });

  describe('events', () => {
    it('records stock.expected, expectation.shipped and expectation.cancelled with the levels after each; a Receive against an expectation names it; refusals, replays and a second Ship record nothing', async () => {
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
      // Shipped already: the same answer, `modified` included, and no second event.
      expect((await shipExpectation(t, admin.bearer, id).expect(200)).body).toEqual(shipped.body);
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
