import request from 'supertest';
import { ALL_SECURITY_IDS, isWrite, SecurityId } from '../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, givenStock } from './support/inventory.js';

/** Every route of spec "Permissions and scope per action", with the SecurityID it needs and a valid request. */
const ROUTES: Array<{ name: string; permission: SecurityId; send: (t: TestApp, bearer: string) => request.Test }> = [
  { name: 'GET /Inventory', permission: SecurityId.ItemMasterList, send: (t, b) => request(t.http).get('/api/v1/Inventory').set('Authorization', b) },
  { name: 'GET /Inventory/1', permission: SecurityId.ItemMasterList, send: (t, b) => request(t.http).get('/api/v1/Inventory/1').set('Authorization', b) },
  { name: 'GET /Inventory/StockLevels', permission: SecurityId.ItemMasterList, send: (t, b) => request(t.http).get('/api/v1/Inventory/StockLevels').set('Authorization', b) },
  { name: 'GET /Inventory/StockLevels/1', permission: SecurityId.ItemMasterList, send: (t, b) => request(t.http).get('/api/v1/Inventory/StockLevels/1').set('Authorization', b) },
  { name: 'GET /Inventory/Transactions', permission: SecurityId.ItemMasterList, send: (t, b) => request(t.http).get('/api/v1/Inventory/Transactions').set('Authorization', b) },
  { name: 'GET /Item', permission: SecurityId.ItemMasterList, send: (t, b) => request(t.http).get('/api/v1/Item').set('Authorization', b) },
  { name: 'GET /Item/All', permission: SecurityId.ItemMasterList, send: (t, b) => request(t.http).get('/api/v1/Item/All').set('Authorization', b) },
  { name: 'GET /Item?key=', permission: SecurityId.ItemMasterList, send: (t, b) => request(t.http).get('/api/v1/Item?key=PERM-1').set('Authorization', b) },
  { name: 'GET /Item?Category=', permission: SecurityId.ItemMasterList, send: (t, b) => request(t.http).get('/api/v1/Item?Category=1').set('Authorization', b) },
  { name: 'POST /Inventory/Receive', permission: SecurityId.PositiveAdjustment, send: (t, b) => request(t.http).post('/api/v1/Inventory/Receive').set('Authorization', b).send({ itemID: 'PERM-1', units: 1, wid: 1, reasonCode: 1 }) },
  { name: 'POST /Inventory/Move', permission: SecurityId.LocateMoveUnits, send: (t, b) => request(t.http).post('/api/v1/Inventory/Move').set('Authorization', b).send({ itemID: 'PERM-1', units: 1, wid: 1, toSpot: 'M' }) },
  { name: 'POST /Inventory/Issue', permission: SecurityId.NegativeAdjustment, send: (t, b) => request(t.http).post('/api/v1/Inventory/Issue').set('Authorization', b).send({ itemID: 'PERM-1', units: 1, wid: 1, reasonCode: 2 }) },
  { name: 'POST /Item', permission: SecurityId.ModifyItemMaster, send: (t, b) => request(t.http).post('/api/v1/Item').set('Authorization', b).send({ shortID: `PERM-NEW-${Math.random()}` }) },
  { name: 'PUT /Item', permission: SecurityId.ModifyItemMaster, send: (t, b) => request(t.http).put('/api/v1/Item').set('Authorization', b).send({ shortID: 'PERM-1', remark: 'x' }) },
  { name: 'DELETE /Item/<shortID>', permission: SecurityId.ModifyItemMaster, send: (t, b) => request(t.http).delete('/api/v1/Item/PERM-GONE').set('Authorization', b) },
];

describe(`the permission table and warehouse scope on every route (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1, 2] });
    await givenItem(t, admin.bearer, { shortID: 'PERM-1' });
    await givenItem(t, admin.bearer, { shortID: 'PERM-GONE' });
    await givenStock(t, admin.bearer, { itemID: 'PERM-1', units: 100, wid: 1 });
    await givenStock(t, admin.bearer, { itemID: 'PERM-1', units: 100, wid: 2 });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  it.each(ROUTES)('$name: 403 "Insufficient permissions." without its SecurityID, success with it', async ({ permission, send }) => {
    const without = await givenClient(t, { permissions: ALL_SECURITY_IDS.filter((p) => p !== permission), warehouses: [1, 2] });
    const refused = await send(t, without.bearer);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ statusCode: 403, error: 'forbidden', message: 'Insufficient permissions.', details: null });
    const only = await givenClient(t, { permissions: [permission], warehouses: [1, 2] });
    const allowed = await send(t, only.bearer);
    expect(allowed.status).toBeLessThan(300);
  });

  it.each(ROUTES)('$name: a read-only client may read but not write', async ({ permission, send }) => {
    const readOnly = await givenClient(t, { readOnly: true, warehouses: [1, 2] });
    const res = await send(t, readOnly.bearer);
    if (isWrite(permission)) {
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('Account is read-only.');
    } else {
      expect(res.status).toBe(200);
    }
  });

  describe('a client scoped to warehouse 1', () => {
    let one: TestClient;
    beforeAll(async () => {
      one = await givenClient(t, { warehouses: [1] });
    });
    const OUT = { statusCode: 403, error: 'forbidden', message: "Warehouse is outside the client's authorized scope.", details: null };
    const post = (path: string, body: object) => request(t.http).post(`/api/v1/Inventory/${path}`).set('Authorization', one.bearer).send(body);

    it('gets 403 for wid 2 on Receive, Move and Issue', async () => {
      expect((await post('Receive', { itemID: 'PERM-1', units: 1, wid: 2, reasonCode: 1 })).body).toEqual(OUT);
      expect((await post('Move', { itemID: 'PERM-1', units: 1, wid: 2, shipToWid: 1 })).body).toEqual(OUT);
      expect((await post('Issue', { itemID: 'PERM-1', units: 1, wid: 2, reasonCode: 1 })).body).toEqual(OUT);
    });

    it('gets 403 for shipToWid 2', async () => {
      const res = await post('Move', { itemID: 'PERM-1', units: 1, wid: 1, shipToWid: 2 });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(OUT);
    });

    it('gets 403 for warehouse 2 lists, and for a warehouse that does not exist', async () => {
      for (const path of ['/api/v1/Inventory/2', '/api/v1/Inventory/StockLevels/2', '/api/v1/Inventory/99']) {
        const res = await request(t.http).get(path).set('Authorization', one.bearer);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(OUT);
      }
    });

    it('sees only warehouse 1 in its lot, stock-level and ledger lists', async () => {
      const lots = await request(t.http).get('/api/v1/Inventory?pageSize=250').set('Authorization', one.bearer);
      expect(lots.body.value.length).toBeGreaterThan(0);
      expect(new Set(lots.body.value.map((l: { wID: number }) => l.wID))).toEqual(new Set([1]));
      const stock = await request(t.http).get('/api/v1/Inventory/StockLevels').set('Authorization', one.bearer);
      const adminStock = await request(t.http).get('/api/v1/Inventory/StockLevels').set('Authorization', admin.bearer);
      const row = stock.body.value.find((r: { shortID: string }) => r.shortID === 'PERM-1');
      const adminRow = adminStock.body.value.find((r: { shortID: string }) => r.shortID === 'PERM-1');
      const inOne = (await request(t.http).get('/api/v1/Inventory/StockLevels/1').set('Authorization', admin.bearer)).body.value.find(
        (r: { shortID: string }) => r.shortID === 'PERM-1',
      );
      expect(row.inStock).toBe(inOne.inStock);
      expect(adminRow.inStock).toBeGreaterThan(row.inStock);
      const ledger = await request(t.http).get('/api/v1/Inventory/Transactions?pageSize=250').set('Authorization', one.bearer);
      for (const e of ledger.body.value as Array<{ fromWid: number | null; toWid: number | null }>) expect([e.fromWid, e.toWid]).toContain(1);
    });

    it('checks the body before the scope', async () => {
      const res = await post('Receive', { itemID: 'PERM-1', units: -1, wid: 2, reasonCode: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_error');
    });
  });
});
