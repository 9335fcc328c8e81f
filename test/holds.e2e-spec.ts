import request from 'supertest';
import { SecurityId } from '../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, givenStock, hold, issue, lotsOf, move, release, stockOf } from './support/inventory.js';

/** POST /Inventory/Hold and /Release: which lots change, splits, stock levels, refusals, and the ledger. */
describe(`Hold and Release (${testDatabaseKind()})`, () => {
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

  /** A new item with lots of 10, 20 and 30 units (oldest first) in warehouse 1, spots A, A, B, serials S1–S3. */
  const givenThreeLots = async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const recNos: number[] = [];
    for (const [units, spot, serial] of [[10, 'A', 'S1'], [20, 'A', 'S2'], [30, 'B', 'S3']] as const) {
      recNos.push(await givenStock(t, admin.bearer, { itemID: shortID, units, spot, serial, remark: `lot ${serial}` }));
    }
    return { shortID, recNos };
  };
  const heldOf = async (shortID: string) => (await lotsOf(t, admin.bearer, shortID)).filter((l) => l.hold).map((l) => [l.spot, l.units]);

  it('holds every matching lot without units, and StockLevels follow at once', async () => {
    const { shortID, recNos } = await givenThreeLots();
    const res = await hold(t, admin.bearer, { itemID: shortID, spot: 'A' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'held', units: 30, lots: [{ recNo: recNos[0], fromRecNo: recNos[0], units: 10 }, { recNo: recNos[1], fromRecNo: recNos[1], units: 20 }] });
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 60, onHold: 30, available: 30 });
    expect(await heldOf(shortID)).toEqual([['A', 10], ['A', 20]]);
  });

  it('holds `units` oldest first, splitting the last lot: the held part is a new lot with the same received date, serials and remark', async () => {
    const { shortID, recNos } = await givenThreeLots();
    const res = await hold(t, admin.bearer, { itemID: shortID, units: 15 });
    expect(res.status).toBe(200);
    expect(res.body.units).toBe(15);
    const [first, split] = res.body.lots;
    expect(first).toEqual({ recNo: recNos[0], fromRecNo: recNos[0], units: 10 });
    expect(split).toMatchObject({ fromRecNo: recNos[1], units: 5 });
    const lots = await lotsOf(t, admin.bearer, shortID);
    const source = lots.find((l) => l.recNo === recNos[1])!;
    const part = lots.find((l) => l.recNo === split.recNo)!;
    expect(source).toMatchObject({ units: 15, hold: false });
    expect(part).toMatchObject({ units: 5, hold: true, spot: 'A', serial: 'S2', remark: 'lot S2', received: source.received });
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 60, onHold: 15, available: 45 });
  });

  it('never lets an Issue take held units; a Move carries the hold; Release makes them available again', async () => {
    const { shortID, recNos } = await givenThreeLots();
    await hold(t, admin.bearer, { itemID: shortID, recno: recNos[2] }).expect(200);
    const refused = await issue(t, admin.bearer, { itemID: shortID, units: 31 });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`Insufficient stock: requested 31 units of ${shortID} in warehouse 1, 30 available.`);
    await move(t, admin.bearer, { itemID: shortID, units: 30, fromSpot: 'B', shipToWid: 2 }).expect(200);
    expect(await stockOf(t, admin.bearer, shortID, 2)).toMatchObject({ inStock: 30, onHold: 30, available: 0 });
    const released = await release(t, admin.bearer, { itemID: shortID, wid: 2, units: 12.5 });
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({ status: 'released', units: 12.5 });
    expect(await stockOf(t, admin.bearer, shortID, 2)).toMatchObject({ inStock: 30, onHold: 17.5, available: 12.5 });
    await issue(t, admin.bearer, { itemID: shortID, wid: 2, units: 12.5 }).expect(200);
    await issue(t, admin.bearer, { itemID: shortID, wid: 2, units: 0.0001 }).expect(409);
  });

  it('refuses with 409 naming requested and available when not enough matches, or nothing at all, and changes nothing', async () => {
    const { shortID } = await givenThreeLots();
    const tooMany = await hold(t, admin.bearer, { itemID: shortID, spot: 'A', units: 30.0001 });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body).toMatchObject({ error: 'conflict', message: `Insufficient stock: requested 30.0001 units of ${shortID} in warehouse 1, 30 available.` });
    const nothingHeld = await release(t, admin.bearer, { itemID: shortID });
    expect(nothingHeld.status).toBe(409);
    expect(nothingHeld.body.message).toBe(`Insufficient stock: requested all matching units of ${shortID} in warehouse 1, 0 available.`);
    const noSuchSerial = await hold(t, admin.bearer, { itemID: shortID, serial: 'NONE' });
    expect(noSuchSerial.status).toBe(409);
    const otherWarehouse = await hold(t, admin.bearer, { itemID: shortID, wid: 2 });
    expect(otherWarehouse.status).toBe(409);
    expect(await heldOf(shortID)).toEqual([]);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 60, onHold: 0, available: 60 });
  });

  it('validates the body like Issue: units 0, 5 decimals, missing reasonCode, unknown item', async () => {
    const { shortID } = await givenThreeLots();
    for (const [body, field] of [
      [{ itemID: shortID, units: 0 }, 'units'],
      [{ itemID: shortID, units: 1.00001 }, 'units'],
      [{ itemID: shortID, reasonCode: undefined }, 'reasonCode'],
      [{ itemID: 'NO-SUCH-ITEM' }, 'itemID'],
      [{ itemID: shortID, recno: 'x' }, 'recno'],
    ] as const) {
      const res = await hold(t, admin.bearer, body);
      expect({ body, status: res.status, error: res.body.error, fields: Object.keys(res.body.details ?? {}) }).toEqual({ body, status: 400, error: 'validation_error', fields: [field] });
    }
    expect(await heldOf(shortID)).toEqual([]);
  });

  it('needs SecurityID 15 and the warehouse in scope; read-only accounts are refused', async () => {
    const { shortID } = await givenThreeLots();
    const issuer = await givenClient(t, { permissions: [SecurityId.ItemMasterList, SecurityId.NegativeAdjustment] });
    const mover = await givenClient(t, { permissions: [SecurityId.LocateMoveUnits], warehouses: [2] });
    const readOnly = await givenClient(t, { readOnly: true });
    expect((await hold(t, issuer.bearer, { itemID: shortID })).body).toMatchObject({ statusCode: 403, message: 'Insufficient permissions.' });
    expect((await release(t, readOnly.bearer, { itemID: shortID })).body).toMatchObject({ statusCode: 403, message: 'Account is read-only.' });
    expect((await hold(t, mover.bearer, { itemID: shortID })).status).toBe(403);
    expect(await heldOf(shortID)).toEqual([]);
  });

  it('replays a keyed Hold, and shows hold and release rows in GET /Inventory/Transactions', async () => {
    const { shortID } = await givenThreeLots();
    const first = await hold(t, admin.bearer, { itemID: shortID, units: 5 }, 'hold-once');
    const again = await hold(t, admin.bearer, { itemID: shortID, units: 5 }, 'hold-once');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    await release(t, admin.bearer, { itemID: shortID }).expect(200);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ onHold: 0 });
    const ledger = await request(t.http).get(`/api/v1/Inventory/Transactions?itemID=${shortID}&pageSize=250`).set('Authorization', admin.bearer);
    const rows = (ledger.body.value as Array<Record<string, unknown>>).filter((r) => r.operation === 'hold' || r.operation === 'release');
    expect(rows.map((r) => [r.operation, r.units, r.fromWid, r.toWid, r.reasonCode])).toEqual([
      ['hold', 5, 1, 1, 3],
      ['release', 5, 1, 1, 4],
    ]);
  });

  it('Hold and Issue racing on the same lots never issue a held unit, and stock stays exact', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    for (let i = 0; i < 10; i++) await givenStock(t, admin.bearer, { itemID: shortID, units: 10 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? issue(t, admin.bearer, { itemID: shortID, units: 7 }) : hold(t, admin.bearer, { itemID: shortID, units: 7 }))),
    );
    const ok = (path: string) => answers.filter((r) => r.status === 200 && r.body.status === path).length;
    expect(answers.every((r) => r.status === 200 || (r.status === 409 && r.body.error === 'conflict'))).toBe(true);
    const level = await stockOf(t, admin.bearer, shortID, 1);
    expect(level).toMatchObject({ inStock: 100 - 7 * ok('issued'), onHold: 7 * ok('held') });
    expect(level!.available).toBeGreaterThanOrEqual(0);
    await expectLedgerConsistent(t);
  });
});
