import request from 'supertest';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, givenStock, issue, lotsOf, move, receive, stockOf } from './support/inventory.js';

const LOT_FIELDS = ['recNo', 'partNo', 'shortID', 'description', 'associate', 'warehouse', 'wID', 'spot', 'units', 'received', 'shipped', 'serial', 'serial2', 'rFIDTag', 'remark', 'hold', 'jobID', 'jobName', 'active'];
const STOCK_FIELDS = ['partNo', 'shortID', 'available', 'inStock', 'onOrder', 'onHold', 'committed', 'packed', 'aSN'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`inventory: Receive, Issue, Move and stock levels (${testDatabaseKind()})`, () => {
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

  /** Every row of a paginated list, page by page; the last page's totalCount must match what was walked. */
  const walkPages = async (bearer: string, path: string, pageSize: number): Promise<Array<Record<string, unknown>>> => {
    const rows: Array<Record<string, unknown>> = [];
    for (let page = 1; ; page++) {
      const { body } = await request(t.http).get(`${path}?page=${page}&pageSize=${pageSize}`).set('Authorization', bearer);
      rows.push(...body.value);
      if (!body.hasMore) {
        expect(body.totalCount).toBe(rows.length);
        return rows;
      }
    }
  };
  const newItem = async (fields: Record<string, unknown> = {}) => (await givenItem(t, admin.bearer, fields)).shortID;

  describe('Receive', () => {
    it('creates a lot and answers 201 {status, recNo, lot} with every Lot field', async () => {
      const itemID = await newItem({ description: 'Hex bolt' });
      const res = await receive(t, admin.bearer, { itemID, units: 12.5, wid: 2, spot: 'A-01', serial: 'S1', serial2: 'S2', rfidTag: 'RF', remark: 'first', jobid: 7, reference: 'PO-1', price: 1.25, expires: '2027-01-01', supplier: 3, line: 2, netWeight: 1, grossWeight: 2, unknownField: 'x' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['status', 'recNo', 'lot']);
      expect(res.body.status).toBe('received');
      expect(Object.keys(res.body.lot)).toEqual(LOT_FIELDS);
      expect(res.body.lot).toMatchObject({ recNo: res.body.recNo, shortID: itemID, description: 'Hex bolt', associate: '', warehouse: 'Warehouse 2', wID: 2, spot: 'A-01', units: 12.5, shipped: null, serial: 'S1', serial2: 'S2', rFIDTag: 'RF', remark: 'first', hold: false, jobID: 7, jobName: '', active: true });
      expect(Date.now() - Date.parse(res.body.lot.received)).toBeLessThan(60_000);
      expect((await stockOf(t, admin.bearer, itemID, 2))).toMatchObject({ inStock: 12.5, available: 12.5, onHold: 0 });
      // The lot page reads the same lot from its row, column by column: field for field what the Receive answered
      // (every text field distinct, so that two columns read into each other's field would show).
      const listed = await request(t.http).get(`/api/v1/Inventory/2?itemID=${itemID}`).set('Authorization', admin.bearer);
      expect(listed.body.value).toEqual([res.body.lot]);
      const held = await receive(t, admin.bearer, { itemID, units: 0.0001, wid: 2, spot: 'B-02', serial: 'S3', serial2: 'S4', rfidTag: 'RF2', remark: 'second', jobid: 8, hold: true });
      await request(t.http).post('/api/v1/Inventory/Issue').set('Authorization', admin.bearer).send({ itemID, units: 12.5, wid: 2, reasonCode: 2 }).expect(200);
      const after = await request(t.http).get(`/api/v1/Inventory/2?itemID=${itemID}`).set('Authorization', admin.bearer);
      // Newest first: the held lot as received, then the first, issued whole: archived, with the time it shipped.
      expect(after.body.value).toEqual([held.body.lot, { ...res.body.lot, active: false, shipped: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }]);
      expect(Date.parse(after.body.value[1].shipped)).toBeGreaterThanOrEqual(Date.parse(res.body.lot.received));
    });

    it('validates required fields and units > 0', async () => {
      const res = await receive(t, admin.bearer, { wid: 1, reasonCode: undefined, units: 0 });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.details).toEqual({ itemID: ['itemID is required'], units: ['units must be greater than 0'], reasonCode: ['reasonCode must be a whole number'] });
      const neg = await receive(t, admin.bearer, { itemID: await newItem(), units: -1 });
      expect(neg.body.details).toEqual({ units: ['units must be greater than 0'] });
      const places = await receive(t, admin.bearer, { itemID: await newItem(), units: 0.00001 });
      expect(places.body.details).toEqual({ units: ['units must have at most 4 decimal places'] });
      const text = await receive(t, admin.bearer, { itemID: await newItem(), units: '5' });
      expect(text.body.details).toEqual({ units: ['units must be a number'] });
    });

    it('answers an unknown item with validation_error on itemID and a discontinued one with 409', async () => {
      const unknown = await receive(t, admin.bearer, { itemID: 'NO-SUCH-ITEM', units: 1 });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details).toEqual({ itemID: ['itemID "NO-SUCH-ITEM" does not name an item'] });
      const itemID = await newItem();
      await request(t.http).delete(`/api/v1/Item/${itemID}`).set('Authorization', admin.bearer);
      const gone = await receive(t, admin.bearer, { itemID, units: 1 });
      expect(gone.status).toBe(409);
      expect(gone.body).toEqual({ statusCode: 409, error: 'conflict', message: `Item ${itemID} is discontinued; it cannot be received.`, details: { reason: 'item_discontinued', itemID } });
    });

    it('receives 0.1 ten times to exactly 1', async () => {
      const itemID = await newItem();
      for (let i = 0; i < 10; i++) await givenStock(t, admin.bearer, { itemID, units: 0.1 });
      expect((await stockOf(t, admin.bearer, itemID, 1))?.inStock).toBe(1);
      const all = await issue(t, admin.bearer, { itemID, units: 1 });
      expect(all.status).toBe(200);
      expect((await stockOf(t, admin.bearer, itemID, 1))?.inStock).toBe(0);
    });
  });

  describe('Issue', () => {
    it('takes from the oldest lots first, archives a lot issued whole in place and splits a partial one', async () => {
      const itemID = await newItem();
      const a = await givenStock(t, admin.bearer, { itemID, units: 5, spot: 'A', serial: 'L-A' });
      await sleep(5);
      const b = await givenStock(t, admin.bearer, { itemID, units: 3, spot: 'B', serial: 'L-B' });
      await sleep(5);
      const c = await givenStock(t, admin.bearer, { itemID, units: 4, spot: 'C' });
      const res = await issue(t, admin.bearer, { itemID, units: 6.5, reference: 'SO-9' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('issued');
      expect(res.body.units).toBe(6.5);
      const [whole, part] = res.body.lots;
      expect(whole).toEqual({ recNo: a, fromRecNo: a, units: 5 });
      expect(part.fromRecNo).toBe(b);
      expect(part.units).toBe(1.5);
      expect(part.recNo).not.toBe(b);
      const lots = await lotsOf(t, admin.bearer, itemID);
      const byNo = new Map(lots.map((l) => [l.recNo, l]));
      expect(byNo.get(a)).toMatchObject({ units: 5, active: false, shipped: expect.any(String) });
      expect(byNo.get(b)).toMatchObject({ units: 1.5, active: true, shipped: null, serial: 'L-B' });
      expect(byNo.get(part.recNo)).toMatchObject({ units: 1.5, active: false, shipped: expect.any(String), serial: 'L-B', spot: 'B' });
      expect(byNo.get(c)).toMatchObject({ units: 4, active: true });
      expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 5.5, available: 5.5 });
    });

    it('issues only from lots matching every selector given', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 2, spot: 'X', serial: 'S-1' });
      const target = await givenStock(t, admin.bearer, { itemID, units: 2, spot: 'Y', serial: 'S-2' });
      const res = await issue(t, admin.bearer, { itemID, units: 1, spot: 'Y', serial: 'S-2' });
      expect(res.body.lots[0].fromRecNo).toBe(target);
      const byRecno = await issue(t, admin.bearer, { itemID, units: 1, recno: target });
      expect(byRecno.body.lots).toEqual([{ recNo: target, fromRecNo: target, units: 1 }]);
      const none = await issue(t, admin.bearer, { itemID, units: 1, spot: 'Y' });
      expect(none.status).toBe(409);
    });

    it('skips held lots, counting them in onHold', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 4, hold: true });
      await givenStock(t, admin.bearer, { itemID, units: 1 });
      expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 5, onHold: 4, available: 1 });
      const res = await issue(t, admin.bearer, { itemID, units: 2 });
      expect(res.status).toBe(409);
      expect(res.body.message).toBe(`Insufficient stock: requested 2 units of ${itemID} in warehouse 1, 1 available.`);
      expect((await issue(t, admin.bearer, { itemID, units: 1 })).status).toBe(200);
      expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 4, onHold: 4, available: 0 });
    });

    it('answers insufficient stock with 409 and changes nothing', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 3 });
      const before = { lots: await lotsOf(t, admin.bearer, itemID), stock: await stockOf(t, admin.bearer, itemID, 1) };
      const ledgerBefore = (await t.dataSource.query('SELECT COUNT(*) AS n FROM ledger_entry'))[0].n;
      const res = await issue(t, admin.bearer, { itemID, units: 3.0001 });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ statusCode: 409, error: 'conflict', message: `Insufficient stock: requested 3.0001 units of ${itemID} in warehouse 1, 3 available.`, details: { reason: 'insufficient_stock', itemID, wid: 1, requested: 3.0001, available: 3 } });
      expect({ lots: await lotsOf(t, admin.bearer, itemID), stock: await stockOf(t, admin.bearer, itemID, 1) }).toEqual(before);
      expect((await t.dataSource.query('SELECT COUNT(*) AS n FROM ledger_entry'))[0].n).toEqual(ledgerBefore);
    });

    it('issues from a discontinued item', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 2 });
      await request(t.http).delete(`/api/v1/Item/${itemID}`).set('Authorization', admin.bearer);
      expect((await issue(t, admin.bearer, { itemID, units: 2 })).status).toBe(200);
    });

    it('keeps the stock-level row, at zero, once the stock is gone', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 2 });
      await issue(t, admin.bearer, { itemID, units: 2 });
      expect(await stockOf(t, admin.bearer, itemID, 1)).toEqual(expect.objectContaining({ inStock: 0, available: 0, onHold: 0 }));
      expect(await stockOf(t, admin.bearer, itemID)).toBeDefined();
    });
  });

  describe('Move', () => {
    it('moves a whole lot keeping its recNo', async () => {
      const itemID = await newItem();
      const lot = await givenStock(t, admin.bearer, { itemID, units: 4, spot: 'A' });
      const res = await move(t, admin.bearer, { itemID, units: 4, toSpot: 'B' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'moved', units: 4, lots: [{ recNo: lot, fromRecNo: lot, units: 4, wid: 1, spot: 'B' }] });
      expect((await lotsOf(t, admin.bearer, itemID))[0]).toMatchObject({ recNo: lot, spot: 'B', units: 4, active: true });
    });

    it("moves part of a lot into a new lot carrying the source's received date, serials, remark and hold", async () => {
      const itemID = await newItem();
      const lot = await givenStock(t, admin.bearer, { itemID, units: 10, spot: 'A', serial: 'SER', serial2: 'SER2', rfidTag: 'TAG', remark: 'note', hold: true });
      const res = await move(t, admin.bearer, { itemID, units: 3, fromSpot: 'A', toSpot: 'Z' });
      expect(res.status).toBe(200);
      const moved = res.body.lots[0];
      expect(moved).toMatchObject({ fromRecNo: lot, units: 3, wid: 1, spot: 'Z' });
      expect(moved.recNo).not.toBe(lot);
      const lots = new Map((await lotsOf(t, admin.bearer, itemID)).map((l) => [l.recNo, l]));
      const source = lots.get(lot)!;
      expect(source).toMatchObject({ units: 7, spot: 'A' });
      expect(lots.get(moved.recNo)).toMatchObject({ units: 3, spot: 'Z', serial: 'SER', serial2: 'SER2', rFIDTag: 'TAG', remark: 'note', hold: true, received: source.received, active: true });
      expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 10, onHold: 10 });
    });

    it('moves between warehouses keeping the total, the hold travelling with the units', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 6, spot: 'A' });
      await givenStock(t, admin.bearer, { itemID, units: 2, spot: 'H', hold: true });
      const res = await move(t, admin.bearer, { itemID, units: 7, shipToWid: 2, toSpot: 'R1', transitSlip: 'TS-1' });
      expect(res.status).toBe(200);
      expect(res.body.lots.map((l: { wid: number }) => l.wid)).toEqual([2, 2]);
      const one = await stockOf(t, admin.bearer, itemID, 1);
      const two = await stockOf(t, admin.bearer, itemID, 2);
      expect(one).toMatchObject({ inStock: 1, onHold: 1 });
      expect(two).toMatchObject({ inStock: 7, onHold: 1 });
      expect(await stockOf(t, admin.bearer, itemID)).toMatchObject({ inStock: 8, onHold: 2, available: 6 });
    });

    it('keeps the source spot when toSpot is omitted on a move between warehouses', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 1, spot: 'K9' });
      const res = await move(t, admin.bearer, { itemID, units: 1, shipToWid: 2 });
      expect(res.body.lots[0]).toMatchObject({ wid: 2, spot: 'K9' });
    });

    it('refuses a destination equal to the source', async () => {
      const itemID = await newItem();
      for (const body of [{ itemID, units: 1 }, { itemID, units: 1, shipToWid: 1 }, { itemID, units: 1, fromSpot: 'A', toSpot: 'A' }]) {
        const res = await move(t, admin.bearer, body);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('validation_error');
        expect(Object.keys(res.body.details)).toEqual(['toSpot']);
      }
    });

    it('answers insufficient stock with 409 and changes nothing', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 1 });
      const res = await move(t, admin.bearer, { itemID, units: 2, shipToWid: 2 });
      expect(res.status).toBe(409);
      expect(await stockOf(t, admin.bearer, itemID, 2)).toBeUndefined();
      expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 1 });
    });
  });

  describe('lists', () => {
    it('lists lots newest first with the page envelope, filtered by itemID and warehouse', async () => {
      const itemID = await newItem();
      const first = await givenStock(t, admin.bearer, { itemID, units: 1 });
      await sleep(5);
      const second = await givenStock(t, admin.bearer, { itemID, units: 1, wid: 2 });
      const all = await request(t.http).get(`/api/v1/Inventory?itemID=${itemID}`).set('Authorization', admin.bearer);
      expect(all.body.value.map((l: { recNo: number }) => l.recNo)).toEqual([second, first]);
      expect(all.headers['x-total-count']).toBe('2');
      const inTwo = await request(t.http).get(`/api/v1/Inventory/2?itemID=${itemID}`).set('Authorization', admin.bearer);
      expect(inTwo.body.value.map((l: { recNo: number }) => l.recNo)).toEqual([second]);
      const unknown = await request(t.http).get('/api/v1/Inventory?itemID=NOPE-X').set('Authorization', admin.bearer);
      expect(unknown.body).toMatchObject({ value: [], totalCount: 0 });
    });

    it('answers a non-numeric warehouse with 404', async () => {
      const res = await request(t.http).get('/api/v1/Inventory/abc').set('Authorization', admin.bearer);
      expect(res.status).toBe(404);
    });

    it('pages stock levels 25 at a time by default, with shortID beside partNo', async () => {
      const res = await request(t.http).get('/api/v1/Inventory/StockLevels').set('Authorization', admin.bearer);
      expect(res.status).toBe(200);
      expect(res.body.pageSize).toBe(25);
      expect(Object.keys(res.body.value[0])).toEqual(STOCK_FIELDS);
      const partNos = res.body.value.map((r: { partNo: number }) => r.partNo);
      expect(partNos).toEqual([...partNos].sort((a, b) => a - b));
      expect(res.body.value[0]).toMatchObject({ onOrder: 0, committed: 0, packed: 0, aSN: 0 });
    });

    it('sorts stock levels by available, and filters them by modifiedSince', async () => {
      const sorted = await request(t.http).get('/api/v1/Inventory/StockLevels?sort=available&direction=DESC&pageSize=250').set('Authorization', admin.bearer);
      const available = sorted.body.value.map((r: { available: number }) => r.available);
      expect(available).toEqual([...available].sort((a, b) => b - a));
      await sleep(5);
      const since = new Date().toISOString();
      await sleep(5);
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 1 });
      const recent = await request(t.http).get(`/api/v1/Inventory/StockLevels?modifiedSince=${since}`).set('Authorization', admin.bearer);
      expect(recent.body.value.map((r: { shortID: string }) => r.shortID)).toEqual([itemID]);
      expect(recent.body.totalCount).toBe(1);
    });

    it('counts stock levels exactly for one warehouse, all of them and some of them', async () => {
      // Warehouse 3 exists too: a client of 1 and 2 is then a scope of some but not all warehouses.
      const wide = await givenClient(t, { warehouses: [1, 2, 3] });
      const only3 = await newItem();
      await givenStock(t, wide.bearer, { itemID: only3, units: 1, wid: 3 });
      const both = await newItem();
      await givenStock(t, wide.bearer, { itemID: both, units: 1, wid: 1 });
      await move(t, wide.bearer, { itemID: both, units: 0.5, shipToWid: 2 });
      const walk = async (bearer: string, path: string) => {
        const seen = (await walkPages(bearer, path, 7)).map((r) => r.partNo as number);
        expect(new Set(seen).size).toBe(seen.length);
        return seen;
      };
      const all = await walk(wide.bearer, '/api/v1/Inventory/StockLevels');
      const some = await walk(admin.bearer, '/api/v1/Inventory/StockLevels');
      const [one, two, three] = [await walk(wide.bearer, '/api/v1/Inventory/StockLevels/1'), await walk(wide.bearer, '/api/v1/Inventory/StockLevels/2'), await walk(wide.bearer, '/api/v1/Inventory/StockLevels/3')];
      expect(new Set(all)).toEqual(new Set([...one, ...two, ...three]));
      expect(new Set(some)).toEqual(new Set([...one, ...two]));
      const partNoOf = async (shortID: string) => (await request(t.http).get(`/api/v1/Item?key=${shortID}`).set('Authorization', admin.bearer)).body.partNo;
      expect(all).toContain(await partNoOf(only3));
      expect(some).not.toContain(await partNoOf(only3));
      expect(one).toContain(await partNoOf(both));
      expect(two).toContain(await partNoOf(both));
    });

    it('walks lot pages newest first without repeating or skipping a lot', async () => {
      const seen = (await walkPages(admin.bearer, '/api/v1/Inventory', 4)).map((l) => l.recNo as number);
      expect(new Set(seen).size).toBe(seen.length);
      const sorted = await request(t.http).get('/api/v1/Inventory?pageSize=250&sort=recNo&direction=DESC').set('Authorization', admin.bearer);
      expect(sorted.body.value.map((l: { recNo: number }) => l.recNo)).toEqual([...seen].sort((a, b) => b - a).slice(0, 250));
    });

    it('lists the ledger as an extension, one row per lot touched', async () => {
      const itemID = await newItem();
      const lot = await givenStock(t, admin.bearer, { itemID, units: 5, reference: 'PO-77' });
      await issue(t, admin.bearer, { itemID, units: 2, reference: 'SO-77' });
      const res = await request(t.http).get(`/api/v1/Inventory/Transactions?itemID=${itemID}`).set('Authorization', admin.bearer);
      expect(res.status).toBe(200);
      expect(res.body.value.map((e: Record<string, unknown>) => [e.operation, e.units, e.fromWid, e.toWid, e.reference])).toEqual([
        ['receive', 5, null, 1, 'PO-77'],
        ['issue', 2, 1, null, 'SO-77'],
      ]);
      expect(res.body.value[1].fromRecNo).toBe(lot);
      expect(res.body.value[0].clientId).toBe(admin.clientId);
    });
  });
});
