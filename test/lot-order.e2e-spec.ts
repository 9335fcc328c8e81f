import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, issue, move } from './support/inventory.js';
import { givenManyLots } from './support/many-lots.js';

/**
 * An operation reads its lots oldest first (received, then recNo) in chunks
 * that seek on from the last lot read (locks.repository.ts `lockLots`): lots whose
 * `received` differ, and tie, and run against recNo order, are taken in
 * exactly that order across chunks, and only as many as the units need.
 */
describe(`lots taken oldest first across chunks (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  /** The item's in-stock lots in warehouse 1 as the database orders them (received, then recNo). */
  const oldestFirst = async (partNo: number): Promise<Array<{ recNo: number; units: number }>> =>
    (await t.dataSource.query('SELECT recNo, units FROM lot WHERE partNo = ? AND wID = 1 AND active = 1 ORDER BY received, recNo', [partNo])).map((r: { recNo: number; units: string | number }) => ({
      recNo: Number(r.recNo),
      units: Number(r.units),
    }));
  /** The recNos of the lots that hold the first `units`, in order. */
  const firstHolding = (lots: Array<{ recNo: number; units: number }>, units: number) => {
    const out: number[] = [];
    for (let sum = 0, i = 0; sum < units; sum += lots[i].units, i++) out.push(lots[i].recNo);
    return out;
  };

  it('issues and moves the oldest lots first, in order, over several chunks of lots with received times in any order', async () => {
    const { shortID: itemID, partNo } = await givenItem(t, admin.bearer);
    await givenManyLots(t, admin.bearer, admin.clientId, itemID, 600, 1);
    // Received times 0 to 6 minutes after a base, in an order unlike recNo's, with many ties (and milliseconds).
    const rows: Array<{ recNo: number }> = await t.dataSource.query('SELECT recNo FROM lot WHERE partNo = ?', [partNo]);
    for (const { recNo } of rows) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, (Number(recNo) * 5) % 7, 0, (Number(recNo) * 37) % 3 === 0 ? 250 : 0));
      await t.dataSource.query('UPDATE lot SET received = ? WHERE recNo = ?', [t.dataSource.driver.preparePersistentValue(at, t.dataSource.getMetadata('Lot').findColumnWithPropertyName('received')!), recNo]);
    }
    const order = await oldestFirst(partNo);
    expect(order.map((l) => l.recNo)).not.toEqual([...order.map((l) => l.recNo)].sort((a, b) => a - b));
    const issued = await issue(t, admin.bearer, { itemID, units: 150.5 });
    expect(issued.status).toBe(200);
    const taken = (issued.body.lots as Array<{ fromRecNo: number }>).map((l) => l.fromRecNo);
    // 150 lots whole and half of the 151st, oldest first.
    expect(taken).toEqual(firstHolding(order, 150.5));
    expect(taken).toHaveLength(151);
    const rest = await oldestFirst(partNo);
    const moved = await move(t, admin.bearer, { itemID, units: 300, toSpot: 'Z-9', reasonCode: 3 });
    expect(moved.status).toBe(200);
    expect((moved.body.lots as Array<{ fromRecNo: number }>).map((l) => l.fromRecNo).sort((a, b) => a - b)).toEqual(firstHolding(rest, 300).sort((a, b) => a - b));
  });
});
