import request from 'supertest';
import { ItemsService } from '../src/catalog/items.service.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, givenStock, issue, lotsOf, move, receive, stockOf } from './support/inventory.js';

/** Text that is not well-formed (DECISIONS "General"): a lone surrogate (Cs), a control character (Cc), format characters (Cf). */
const NOT_TEXT: Array<[string, string]> = [
  ['a lone high surrogate', 'DUP\ud800'],
  ['a lone low surrogate', 'DUP\udc00X'],
  ['a control character', 'DUP\u0007'],
  ['a zero-width space', 'DUP\u200b'],
  ['a right-to-left override', '\u202eDUP'],
  ['a byte-order mark', '\ufeffDUP'],
];

describe(`text is well-formed or refused; identifiers are exact (${testDatabaseKind()})`, () => {
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

  const get = (path: string) => request(t.http).get(`/api/v1${path}`).set('Authorization', admin.bearer);
  const postItem = (body: object) => request(t.http).post('/api/v1/Item').set('Authorization', admin.bearer).send(body);
  const putItem = (body: object) => request(t.http).put('/api/v1/Item').set('Authorization', admin.bearer).send(body);
  const count = async (table: 'item' | 'lot' | 'ledger_entry') => Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const expectRefused = (res: request.Response, field: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'validation_error' });
    expect(Object.keys(res.body.details)).toEqual([field]);
  };

  describe.each(NOT_TEXT)('%s', (_name, bad) => {
    it('is refused in every string field of POST and PUT /Item, and creates nothing', async () => {
      const item = await givenItem(t, admin.bearer);
      const before = await count('item');
      for (const field of ['shortID', 'description', 'uOM', 'unit', 'putUp']) {
        expectRefused(await postItem({ shortID: `T-${field}`, [field]: bad }), field);
      }
      for (const field of ['shortID', 'description', 'uOM', 'putUp']) {
        expectRefused(await putItem({ shortID: item.shortID, [field]: bad }), field);
      }
      expect(await count('item')).toBe(before);
      expect((await get(`/Item/${item.partNo}`)).body).toMatchObject({ description: item.description, uOM: item.uOM, putUp: item.putUp });
    });

    it('is refused in every string field of Receive, Issue and Move, and changes no stock', async () => {
      const { shortID } = await givenItem(t, admin.bearer);
      await givenStock(t, admin.bearer, { itemID: shortID, units: 10, spot: 'A1', serial: 'SN-1' });
      const [lots, ledger] = [await count('lot'), await count('ledger_entry')];
      for (const field of ['itemID', 'spot', 'serial', 'serial2', 'rfidTag', 'remark', 'reference']) {
        expectRefused(await receive(t, admin.bearer, { itemID: shortID, units: 1, [field]: bad }), field);
      }
      for (const field of ['spot', 'serial', 'serial2', 'rfidTag', 'remark', 'reference', 'prodID']) {
        expectRefused(await issue(t, admin.bearer, { itemID: shortID, units: 1, [field]: bad }), field);
      }
      for (const field of ['fromSpot', 'toSpot', 'serial', 'transitSlip']) {
        expectRefused(await move(t, admin.bearer, { itemID: shortID, units: 1, toSpot: 'B1', [field]: bad }), field);
      }
      expect([await count('lot'), await count('ledger_entry')]).toEqual([lots, ledger]);
      expect(await stockOf(t, admin.bearer, shortID)).toMatchObject({ inStock: 10 });
    });
  });

  // A URL cannot carry a lone surrogate (UTF-8 has no encoding for one), so these three only.
  it.each(NOT_TEXT.filter(([, bad]) => !/[\ud800-\udfff]/.test(bad)))('refuses %s in query parameters', async (_name, bad) => {
    const q = encodeURIComponent(bad);
    expectRefused(await get(`/Item?key=${q}`), 'key');
    expectRefused(await get(`/Inventory?itemID=${q}`), 'itemID');
    expectRefused(await get(`/Inventory/Transactions?itemID=${q}`), 'itemID');
    expectRefused(await get(`/Item?sort=shortID${q}`), 'sort');
  });

  it('refuses an alias that is not well-formed text (admin CLI alias:create)', async () => {
    const item = await givenItem(t, admin.bearer);
    const items = t.app.get(ItemsService);
    for (const [, bad] of NOT_TEXT) {
      await expect(items.createAlias(item.shortID, bad)).rejects.toMatchObject({ code: 'validation_error', details: { alias: [expect.stringMatching(/control characters/)] } });
    }
    expect(Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM item_alias'))[0].n)).toBe(0);
  });

  it('counts characters as the database does: 64 letters each with a variation selector is 128', async () => {
    expectRefused(await postItem({ shortID: 'a\ufe0f'.repeat(64) }), 'shortID');
    expect((await postItem({ shortID: '😀'.repeat(64) })).status).toBe(201);
  });

  describe('shortID and aliases are one key after NFKC normalisation, regardless of case', () => {
    it('refuses ＡＢＣ-1 (full width) after abc-1 with 409, and every lookup by key finds abc-1', async () => {
      const created = await postItem({ shortID: 'abc-1', description: 'the original' });
      expect(created.status).toBe(201);
      for (const lookAlike of ['ＡＢＣ-1', 'ABC-1', 'ａｂｃ－１']) {
        const dup = await postItem({ shortID: lookAlike });
        expect(dup.status).toBe(409);
        expect(dup.body.error).toBe('conflict');
      }
      for (const key of ['ＡＢＣ-1', 'ａｂｃ－１']) {
        const found = await get(`/Item?key=${encodeURIComponent(key)}`);
        expect(found.status).toBe(200);
        expect(found.body).toMatchObject({ partNo: created.body.partNo, shortID: 'abc-1' });
      }
      const updated = await putItem({ shortID: 'ＡＢＣ-1', putUp: 'Box' });
      expect(updated.body).toMatchObject({ partNo: created.body.partNo, shortID: 'abc-1', putUp: 'Box' });
    });

    it('receives, issues and filters lists by a look-alike itemID as the same item', async () => {
      const { partNo } = await givenItem(t, admin.bearer, { shortID: 'Ｗｉｄｇｅｔ-９' });
      await givenStock(t, admin.bearer, { itemID: 'widget-9', units: 5 });
      const issued = await issue(t, admin.bearer, { itemID: 'WIDGET-9', units: 2 });
      expect(issued.status).toBe(200);
      const lots = await lotsOf(t, admin.bearer, 'ＷＩＤＧＥＴ-９');
      expect(lots.length).toBe(2);
      expect(lots.every((l) => l.partNo === partNo)).toBe(true);
      const ledger = await get(`/Inventory/Transactions?itemID=widget-9`);
      expect(ledger.body.value.map((r: { partNo: number }) => r.partNo)).toEqual([partNo, partNo]);
      const discontinued = await request(t.http).delete(`/api/v1/Item/${encodeURIComponent('ｗｉｄｇｅｔ-9')}`).set('Authorization', admin.bearer);
      expect(discontinued.body).toEqual({ shortID: 'Ｗｉｄｇｅｔ-９', status: 'discontinued' });
    });

    it('refuses a look-alike alias and finds the item by a look-alike of its alias', async () => {
      const item = await givenItem(t, admin.bearer, { shortID: 'ALIASED-1' });
      const items = t.app.get(ItemsService);
      await items.createAlias('ALIASED-1', 'CUST-1');
      await expect(items.createAlias('ALIASED-1', 'ＣＵＳＴ-1')).rejects.toMatchObject({ code: 'conflict' });
      const found = await get(`/Item?key=${encodeURIComponent('ｃｕｓｔ-1')}&type=alias`);
      expect(found.body.partNo).toBe(item.partNo);
    });

    it('keeps accented letters distinct: ÄBC-1 is not ABC-1', async () => {
      expect((await postItem({ shortID: 'ÄBC-1' })).status).toBe(201);
      expect((await get(`/Item?key=${encodeURIComponent('äbc-1')}`)).body.shortID).toBe('ÄBC-1');
    });
  });

  describe('identifier fields refuse leading and trailing spaces, so matching is exact on every database', () => {
    it('refuses them in spot, fromSpot, toSpot, serial, serial2 and rfidTag', async () => {
      const { shortID } = await givenItem(t, admin.bearer);
      await givenStock(t, admin.bearer, { itemID: shortID, units: 4, spot: 'A1', serial: 'SN-A' });
      const lots = await count('lot');
      for (const [field, value] of [['spot', 'A1 '], ['serial', ' SN-A'], ['serial2', 'X\u00a0'], ['rfidTag', '\u3000T']]) {
        expectRefused(await receive(t, admin.bearer, { itemID: shortID, units: 1, [field]: value }), field);
        expectRefused(await issue(t, admin.bearer, { itemID: shortID, units: 1, [field]: value }), field);
      }
      expectRefused(await move(t, admin.bearer, { itemID: shortID, units: 1, fromSpot: 'A1 ', toSpot: 'B1' }), 'fromSpot');
      expectRefused(await move(t, admin.bearer, { itemID: shortID, units: 1, toSpot: ' B1' }), 'toSpot');
      expect(await count('lot')).toBe(lots);
      // Inner spaces are fine.
      expect((await receive(t, admin.bearer, { itemID: shortID, units: 1, spot: 'A 1', serial: 'SN B' })).status).toBe(201);
    });
  });
});
