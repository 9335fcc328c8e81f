import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { eventRows, lastSeq } from './support/events.js';
import { batch, expectLedgerConsistent, stockOf } from './support/inventory.js';
import { givenManyLots } from './support/many-lots.js';

/**
 * EXTENSIONS "Warehouse operations": a batch touches at most 10,000 lots in
 * all; one that would touch more is refused before that operation's work.
 */
describe(`Batch limits (${testDatabaseKind()})`, () => {
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

  const count = async (table: string) => Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const snapshot = async () => ({ lots: await count('lot'), ledger: await count('ledger_entry'), events: await eventRows(t), seq: await lastSeq(t) });

  it('refuses a batch that would touch 10,001 lots with 409 batch_too_large, changing nothing; 10,000 lots run', async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenManyLots(t, admin.bearer, admin.clientId, itemID, 10_001, 1);
    const before = await snapshot();
    // 5,000 lots held, then every one of the other 5,001: 10,001 in all, refused at the second operation.
    const over = await batch(t, admin.bearer, [
      { op: 'hold', itemID, wid: 1, reasonCode: 3, units: 5_000 },
      { op: 'hold', itemID, wid: 1, reasonCode: 3 },
    ]);
    expect(over.status).toBe(409);
    expect(over.body).toEqual({
      statusCode: 409,
      error: 'conflict',
      message: 'A batch touches at most 10000 lots in all; this one would touch more. (operations[1])',
      details: { reason: 'batch_too_large', limit: 10_000, operation: 1 },
    });
    expect(await snapshot()).toEqual(before);
    expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 10_001, onHold: 0 });

    // Exactly 10,000: 5,000 whole lots twice.
    const at = await batch(t, admin.bearer, [
      { op: 'hold', itemID, wid: 1, reasonCode: 3, units: 5_000 },
      { op: 'hold', itemID, wid: 1, reasonCode: 3, units: 5_000 },
    ]);
    expect(at.status).toBe(200);
    expect(at.body.results.map((r: { lots: unknown[] }) => r.lots.length)).toEqual([5_000, 5_000]);
    expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 10_001, onHold: 10_000 });

    // A lot split counts twice (the lot changed and the lot made from it): 9,999 whole lots and one split is 10,001.
    const split = await batch(t, admin.bearer, [{ op: 'release', itemID, wid: 1, reasonCode: 4, units: 9_999.5 }]);
    expect(split.status).toBe(409);
    expect(split.body.details).toEqual({ reason: 'batch_too_large', limit: 10_000, operation: 0 });
    expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 10_001, onHold: 10_000 });
  });

  it('counts the lots a Count takes against the limit, and refuses one that would pass it before reading more', async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenManyLots(t, admin.bearer, admin.clientId, itemID, 10_001, 1);
    const before = await snapshot();
    // Two counts that each find 5,000.5 fewer units: 5,000 lots and one split, then 5,001 lots: 10,003 in all.
    const over = await batch(t, admin.bearer, [
      { op: 'count', itemID, wid: 1, reasonCode: 5, counted: 5_000.5, expected: 10_001 },
      { op: 'count', itemID, wid: 1, reasonCode: 5, counted: 0, expected: 5_000.5 },
    ]);
    expect({ status: over.status, details: over.body.details }).toEqual({ status: 409, details: { reason: 'batch_too_large', limit: 10_000, operation: 1 } });
    expect(await snapshot()).toEqual(before);
    // Counts that find what is there touch no lot, however many there are.
    const equal = await batch(t, admin.bearer, Array.from({ length: 50 }, () => ({ op: 'count', itemID, wid: 1, reasonCode: 5, counted: 10_001, expected: 10_001 })));
    expect(equal.status).toBe(200);
    expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 10_001 });
  });
});
