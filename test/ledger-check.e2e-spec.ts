import { spawnSync } from 'node:child_process';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { allocate, expectUnits, pack } from './support/documents.js';
import { givenStock, issue, move } from './support/inventory.js';

describe(`the ledger check, npm run cli -- ledger:check (${testDatabaseKind()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    const client = await givenClient(t, { warehouses: [1, 2] });
    const { shortID } = await givenItem(t, client.bearer);
    await givenStock(t, client.bearer, { itemID: shortID, units: 7.25, hold: true });
    await givenStock(t, client.bearer, { itemID: shortID, units: 3 });
    await issue(t, client.bearer, { itemID: shortID, units: 1.5 });
    await move(t, client.bearer, { itemID: shortID, units: 4, shipToWid: 2 });
    // Documents in warehouse 1 (1.5 units available there): an allocation partly packed, an expectation in transit.
    const allocation = await allocate(t, client.bearer, { itemID: shortID, units: 1, reference: 'SO-1' }).expect(201);
    await pack(t, client.bearer, allocation.body.allocation.id, { units: 0.25 }).expect(200);
    await expectUnits(t, client.bearer, { itemID: shortID, units: 6, reference: 'PO-1', stage: 'shipped' }).expect(201);
  });
  afterAll(() => t.close());

  const check = () => {
    const r = spawnSync(process.execPath, ['dist/src/cli.js', 'ledger:check'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.database.url }, encoding: 'utf8' });
    type Mismatches = Array<Record<string, unknown>>;
    return { status: r.status, report: JSON.parse(r.stdout) as { ok: boolean; checked: number; mismatches: Mismatches; countMismatches: Mismatches; listCountMismatches: Mismatches; documentMismatches: Mismatches; documentStateMismatches: Mismatches } };
  };

  it('passes on consistent data', () => {
    const { status, report } = check();
    expect(status).toBe(0);
    expect(report).toEqual({ ok: true, checked: 2, mismatches: [], countMismatches: [], listCountMismatches: [], documentMismatches: [], documentStateMismatches: [] });
  });

  it('fails, naming the item and warehouse, when a summary row disagrees', async () => {
    await t.dataSource.query('UPDATE stock_level SET inStock = inStock + 1 WHERE wID = 2');
    const { status, report } = check();
    expect(status).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.mismatches).toEqual([expect.objectContaining({ wID: 2, ledger: '4.0000', lots: '4.0000', summary: '5.0000' })]);
    await t.dataSource.query('UPDATE stock_level SET inStock = inStock - 1 WHERE wID = 2');
  });

  it('fails, naming the scope, when a stock_count row disagrees with the stock levels it counts', async () => {
    await t.dataSource.query('UPDATE stock_count SET items = items + 1 WHERE scope = 2');
    const { status, report } = check();
    expect(status).toBe(1);
    expect(report.mismatches).toEqual([]);
    expect(report.countMismatches).toEqual([{ scope: 2, stored: 2, actual: 1 }]);
    await t.dataSource.query('UPDATE stock_count SET items = items - 1 WHERE scope = 2');
    expect(check().report.ok).toBe(true);
  });

  it('fails, naming the list and scope, when a list counter disagrees with a COUNT of its list', async () => {
    // One slot row more, for each kind of counter: lots of warehouse 2, active items, receives into 1, items stocked in 1 and 2,
    // the allocations and expectations of warehouse 1; and a counter of documents in warehouse 2, which has none.
    const tampered = [['lots', '2'], ['items', 'active'], ['ledger', '0>1'], ['stock', '1,2'], ['allocations', '1'], ['expectations', '1'], ['expectations', '2']];
    for (const [list, scope] of tampered) await t.dataSource.query('INSERT INTO list_count (list, scope, slot, n) VALUES (?, ?, 99, 1)', [list, scope]);
    const { status, report } = check();
    expect(status).toBe(1);
    expect(report.mismatches).toEqual([]);
    expect(report.countMismatches).toEqual([]);
    expect(report.listCountMismatches).toEqual([
      { list: 'allocations', scope: '1', stored: 2, actual: 1 },
      { list: 'expectations', scope: '1', stored: 2, actual: 1 },
      { list: 'expectations', scope: '2', stored: 1, actual: 0 },
      { list: 'items', scope: 'active', stored: 2, actual: 1 },
      { list: 'ledger', scope: '0>1', stored: 3, actual: 2 },
      { list: 'lots', scope: '2', stored: 2, actual: 1 },
      { list: 'stock', scope: '1,2', stored: 2, actual: 1 },
    ]);
    await t.dataSource.query('DELETE FROM list_count WHERE slot = 99');
    expect(check().report.ok).toBe(true);
  });

  it("fails, naming the item, warehouse and figure, when a stock level's committed, packed, onOrder or aSN disagrees with the open documents", async () => {
    // The allocation leaves 0.75 committed and 0.25 packed, the expectation 6 in aSN: the row's figures and an allocation tampered with.
    await t.dataSource.query('UPDATE stock_level SET committed = committed + 1, aSN = aSN - 2 WHERE wID = 1');
    await t.dataSource.query("UPDATE allocation SET packed = packed + 0.25 WHERE reference = 'SO-1'");
    const { status, report } = check();
    expect(status).toBe(1);
    expect(report.mismatches).toEqual([]);
    expect(report.documentMismatches).toEqual([
      expect.objectContaining({ wID: 1, figure: 'committed', summary: '1.7500', documents: '0.5000' }),
      expect.objectContaining({ wID: 1, figure: 'packed', summary: '0.2500', documents: '0.5000' }),
      expect.objectContaining({ wID: 1, figure: 'aSN', summary: '4.0000', documents: '6.0000' }),
    ]);
    await t.dataSource.query("UPDATE allocation SET packed = packed - 0.25 WHERE reference = 'SO-1'");
    await t.dataSource.query('UPDATE stock_level SET committed = committed - 1, aSN = aSN + 2 WHERE wID = 1');
    expect(check().report.ok).toBe(true);
  });

  it('fails, naming the document, when an allocation or expectation breaks its own rules though the sums agree', async () => {
    // SO-1: 1 unit, 0.25 packed, 0.75 committed; PO-1: 6 units in transit.
    const [allocation] = await t.dataSource.query("SELECT id FROM allocation WHERE reference = 'SO-1'");
    const [expectation] = await t.dataSource.query("SELECT id FROM expectation WHERE reference = 'PO-1'");
    const tamper = [
      // Closed with units still to ship, the stock level lowered to match: the sums agree, the allocation does not.
      {
        change: ["UPDATE allocation SET state = 'done' WHERE reference = 'SO-1'", 'UPDATE stock_level SET committed = committed - 0.75, packed = packed - 0.25 WHERE wID = 1'],
        undo: ["UPDATE allocation SET state = 'open' WHERE reference = 'SO-1'", 'UPDATE stock_level SET committed = committed + 0.75, packed = packed + 0.25 WHERE wID = 1'],
        found: { kind: 'allocation', id: Number(allocation.id), state: 'done', units: '1.0000', shipped: '0.0000', packed: '0.2500' },
      },
      // Packed past its units, committed lowered to match.
      {
        change: ["UPDATE allocation SET packed = 1.5 WHERE reference = 'SO-1'", 'UPDATE stock_level SET committed = committed - 1.25, packed = packed + 1.25 WHERE wID = 1'],
        undo: ["UPDATE allocation SET packed = 0.25 WHERE reference = 'SO-1'", 'UPDATE stock_level SET committed = committed + 1.25, packed = packed - 1.25 WHERE wID = 1'],
        found: { kind: 'allocation', id: Number(allocation.id), state: 'open', units: '1.0000', shipped: '0.0000', packed: '1.5000' },
      },
      // An expectation of a stage no one knows: it counts in neither figure, which is lowered to match.
      {
        change: [`UPDATE expectation SET stage = 'lost' WHERE id = ${Number(expectation.id)}`, 'UPDATE stock_level SET aSN = aSN - 6 WHERE wID = 1'],
        undo: [`UPDATE expectation SET stage = 'shipped' WHERE id = ${Number(expectation.id)}`, 'UPDATE stock_level SET aSN = aSN + 6 WHERE wID = 1'],
        found: { kind: 'expectation', id: Number(expectation.id), state: 'open', stage: 'lost', units: '6.0000', received: '0.0000' },
      },
    ];
    for (const { change, undo, found } of tamper) {
      for (const sql of change) await t.dataSource.query(sql);
      const { status, report } = check();
      expect({ status, documentMismatches: report.documentMismatches, documentStateMismatches: report.documentStateMismatches }).toEqual({ status: 1, documentMismatches: [], documentStateMismatches: [found] });
      for (const sql of undo) await t.dataSource.query(sql);
      expect(check().report.ok).toBe(true);
    }
  });

  it('fails when a lot changes without a ledger row', async () => {
    await t.dataSource.query("UPDATE lot SET units = units + 0.0001 WHERE wID = 1 AND active = 1 AND hold = 0");
    const { status, report } = check();
    expect(status).toBe(1);
    expect(report.mismatches[0]).toMatchObject({ wID: 1 });
  });
});
