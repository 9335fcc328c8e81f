import request from 'supertest';
import { addCounts } from '../src/database/counters.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, givenStock, issue, move, receive, stockOf } from './support/inventory.js';

/** DECISIONS "Inventory": the most a lot, an item in one warehouse, or an item across warehouses may hold. */
const MAX = 99_999_999_999.9999;

/** The ten digits as a derived table; four of them cross-joined count 0 … 9,999 on both databases. */
const DIGITS = '(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
const LOT_COLUMNS = 'partNo, shortIdKey, wID, spot, units, received, shipped, serial, serial2, rFIDTag, remark, hold, jobID, jobName, associate, active, modified';

describe(`stock bounds and operations over thousands of lots (${testDatabaseKind()})`, () => {
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
  const newItem = async () => (await givenItem(t, admin.bearer)).shortID;
  const stockLevels = () => request(t.http).get('/api/v1/Inventory/StockLevels?pageSize=250').set('Authorization', admin.bearer);

  /**
   * `count` lots of `units` each of a new item in warehouse 1: one by Receive,
   * the rest copied from it by SQL with their receive ledger rows and the
   * stock level they add up to, as if each had been received (the stock
   * invariant holds afterwards, and the list counters count them). Copies share the first lot's received time,
   * so they are taken in recNo order.
   */
  async function givenManyLots(count: number, units: number): Promise<string> {
    const itemID = await newItem();
    const first = await givenStock(t, admin.bearer, { itemID, units, spot: 'BULK' });
    const db = t.dataSource;
    await db.query(
      `INSERT INTO lot (${LOT_COLUMNS}) SELECT ${LOT_COLUMNS.split(', ').map((c) => `l.${c}`).join(', ')}
       FROM lot l, ${DIGITS} a, ${DIGITS} b, ${DIGITS} c, ${DIGITS} d
       WHERE l.recNo = ? AND a.d * 1000 + b.d * 100 + c.d * 10 + d.d < ?`,
      [first, count - 1],
    );
    const [{ partNo }] = await db.query('SELECT partNo FROM lot WHERE recNo = ?', [first]);
    await db.query(
      `INSERT INTO ledger_entry (operationId, operation, partNo, recNo, toWid, toSpot, units, reasonCode, reference, remark, clientId, created)
       SELECT 'seeded-copies', 'receive', partNo, recNo, wID, spot, units, 1, '', '', ?, received FROM lot WHERE partNo = ? AND recNo <> ?`,
      [admin.clientId, partNo, first],
    );
    await db.query('UPDATE stock_level SET inStock = (SELECT SUM(units) FROM lot WHERE lot.partNo = ? AND lot.wID = 1 AND lot.active = 1) WHERE partNo = ? AND wID = 1', [partNo, partNo]);
    await addCounts(db.manager, [{ list: 'lots', scope: '1', by: count - 1 }, { list: 'ledger', scope: '0>1', by: count - 1 }]);
    const [{ n }] = await db.query('SELECT COUNT(*) AS n FROM lot WHERE partNo = ?', [partNo]);
    expect(Number(n)).toBe(count);
    return itemID;
  }

  describe("bounds on an item's stock", () => {
    it('refuses a Receive past the bound with 409 naming it, and changes nothing', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: MAX });
      const over = await receive(t, admin.bearer, { itemID, units: 0.0001 });
      expect(over.status).toBe(409);
      expect(over.body).toEqual({ statusCode: 409, error: 'conflict', message: `Stock of ${itemID} across all warehouses would exceed ${MAX} units.`, details: { reason: 'stock_bound', bound: MAX } });
      expect((await stockOf(t, admin.bearer, itemID, 1))?.inStock).toBe(MAX);
    });

    it('refuses a Receive that would take the total across warehouses past the bound, so the all-warehouse list never overflows', async () => {
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 60_000_000_000, wid: 1 });
      const second = await receive(t, admin.bearer, { itemID, units: 60_000_000_000, wid: 2 });
      expect(second.status).toBe(409);
      expect(second.body.message).toBe(`Stock of ${itemID} across all warehouses would exceed ${MAX} units.`);
      expect(await stockOf(t, admin.bearer, itemID, 2)).toBeUndefined();
      // Up to the bound exactly is fine.
      expect((await receive(t, admin.bearer, { itemID, units: 39_999_999_999.9999, wid: 2 })).status).toBe(201);
      const list = await stockLevels();
      expect(list.status).toBe(200);
      expect(list.body.value.find((r: { shortID: string }) => r.shortID === itemID)).toMatchObject({ inStock: MAX, available: MAX, onHold: 0 });
    });

    it('lets exactly one of two concurrent Receives into different warehouses through when together they would pass the bound', async () => {
      for (let round = 0; round < 5; round++) {
        const itemID = await newItem();
        const answers = await Promise.all([1, 2, 1, 2].map((wid) => receive(t, admin.bearer, { itemID, units: 40_000_000_000, wid })));
        expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 409, 409]);
        const total = (await stockLevels()).body.value.find((r: { shortID: string }) => r.shortID === itemID);
        expect(total.inStock).toBe(80_000_000_000);
      }
    });

    it('serves the stock-level lists even when stored stock is past the bound', async () => {
      // Stock written before the total was bounded: 60,000,000,000 in each of two warehouses.
      const itemID = await newItem();
      await givenStock(t, admin.bearer, { itemID, units: 60_000_000_000, wid: 1 });
      const recNo = await givenStock(t, admin.bearer, { itemID, units: 1, wid: 2 });
      await t.dataSource.query('UPDATE lot SET units = ? WHERE recNo = ?', [60_000_000_000, recNo]);
      await t.dataSource.query('UPDATE ledger_entry SET units = ? WHERE recNo = ?', [60_000_000_000, recNo]);
      const [{ partNo }] = await t.dataSource.query('SELECT partNo FROM lot WHERE recNo = ?', [recNo]);
      await t.dataSource.query('UPDATE stock_level SET inStock = ? WHERE partNo = ? AND wID = 2', [60_000_000_000, partNo]);

      const list = await stockLevels();
      expect(list.status).toBe(200);
      expect(list.body.value.find((r: { shortID: string }) => r.shortID === itemID)).toMatchObject({ inStock: 120_000_000_000, available: 120_000_000_000 });
      for (const sort of ['available', 'inStock', 'onHold', 'shortID']) {
        expect((await request(t.http).get(`/api/v1/Inventory/StockLevels?sort=${sort}`).set('Authorization', admin.bearer)).status).toBe(200);
      }
      expect((await request(t.http).get('/api/v1/Inventory/StockLevels/2').set('Authorization', admin.bearer)).status).toBe(200);
      // Nothing more comes in, and stock can still go out.
      expect((await receive(t, admin.bearer, { itemID, units: 1, wid: 1 })).status).toBe(409);
      expect((await issue(t, admin.bearer, { itemID, units: 1, wid: 2 })).status).toBe(200);
    });
  });

  describe('an operation over 10,000 small lots', () => {
    it('issues from 10,000 lots in one request, archiving each and splitting the last', async () => {
      const itemID = await givenManyLots(10_000, 0.5);
      const res = await issue(t, admin.bearer, { itemID, units: 4_999.75 }, `issue-many-${itemID}`);
      expect(res.status).toBe(200);
      expect(res.body.lots).toHaveLength(10_000);
      expect(res.body.lots.slice(0, -1).every((l: { recNo: number; fromRecNo: number; units: number }) => l.recNo === l.fromRecNo && l.units === 0.5)).toBe(true);
      const last = res.body.lots.at(-1);
      expect(last.units).toBe(0.25);
      expect(last.recNo).not.toBe(last.fromRecNo);
      expect((await stockOf(t, admin.bearer, itemID, 1))?.inStock).toBe(0.25);
      const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM ledger_entry WHERE operation = ? AND idempotencyKey = ?', ['issue', `issue-many-${itemID}`]);
      expect(Number(n)).toBe(10_000);
      // The stored answer replays whole.
      const replay = await issue(t, admin.bearer, { itemID, units: 4_999.75 }, `issue-many-${itemID}`);
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(res.body);
    });

    it('moves 10,000 lots in one request, each keeping its recNo', async () => {
      const itemID = await givenManyLots(10_000, 0.5);
      const res = await move(t, admin.bearer, { itemID, units: 5_000, shipToWid: 2, toSpot: 'DOCK' }, `move-many-${itemID}`);
      expect(res.status).toBe(200);
      expect(res.body.lots).toHaveLength(10_000);
      expect(res.body.lots.every((l: { recNo: number; fromRecNo: number; wid: number; spot: string }) => l.recNo === l.fromRecNo && l.wid === 2 && l.spot === 'DOCK')).toBe(true);
      expect((await stockOf(t, admin.bearer, itemID, 1))?.inStock).toBe(0);
      expect((await stockOf(t, admin.bearer, itemID, 2))?.inStock).toBe(5_000);
      const moved = new Set(res.body.lots.map((l: { recNo: number }) => l.recNo));
      expect(moved.size).toBe(10_000);
      const [{ n }] = await t.dataSource.query("SELECT COUNT(*) AS n FROM lot WHERE wID = 2 AND spot = 'DOCK' AND active = 1");
      expect(Number(n)).toBe(10_000);
    });
  });
});
