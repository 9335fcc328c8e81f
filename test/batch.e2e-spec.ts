import request from 'supertest';
import { SecurityId } from '../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { batch, expectLedgerConsistent, givenStock, stockOf } from './support/inventory.js';

/** POST /Inventory/Batch: all or nothing, the order of checks over the whole batch, answers, races. */
describe(`Batch (${testDatabaseKind()})`, () => {
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
  const snapshot = async () => ({ lots: await count('lot'), ledger: await count('ledger_entry'), levels: await count('stock_level') });

  it('runs every kind of operation in order and answers each one as its own endpoint would', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const res = await batch(t, admin.bearer, [
      { op: 'receive', itemID: shortID, units: 50, wid: 1, reasonCode: 1, spot: 'A' },
      { op: 'issue', itemID: shortID, units: 5, wid: 1, reasonCode: 2 },
      { op: 'move', itemID: shortID, units: 10, wid: 1, shipToWid: 2 },
      { op: 'hold', itemID: shortID, units: 5, wid: 1, reasonCode: 3 },
      { OP: 'release', itemID: shortID, wid: 1, reasonCode: 4 },
      { op: 'count', itemID: shortID, wid: 1, counted: 30, expected: 35, reasonCode: 5 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['received', 'issued', 'moved', 'held', 'released', 'counted']);
    expect(res.body.results[5]).toMatchObject({ before: 35, counted: 30, delta: -5 });
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 30, onHold: 0 });
    expect(await stockOf(t, admin.bearer, shortID, 2)).toMatchObject({ inStock: 10 });
  });

  it('changes nothing when a later operation fails, answering with its own error naming its index', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: shortID, units: 10 });
    const before = await snapshot();
    const res = await batch(t, admin.bearer, [
      { op: 'receive', itemID: shortID, units: 5, wid: 1, reasonCode: 1 },
      { op: 'issue', itemID: shortID, units: 12, wid: 1, reasonCode: 2 },
      { op: 'issue', itemID: shortID, units: 4, wid: 1, reasonCode: 2 },
    ]);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict', message: `Insufficient stock: requested 4 units of ${shortID} in warehouse 1, 3 available. (operations[2])` });
    expect(await snapshot()).toEqual(before);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 10 });
  });

  it('refuses a malformed batch: not an array, none, 251, an unknown op, a nested batch', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const line = { op: 'receive', itemID: shortID, units: 1, wid: 1, reasonCode: 1 };
    for (const operations of [undefined, {}, [], Array(251).fill(line), 'x']) {
      const res = await batch(t, admin.bearer, operations);
      expect({ n: Array.isArray(operations) ? operations.length : operations, status: res.status, details: Object.keys(res.body.details ?? {}) }).toEqual({
        n: Array.isArray(operations) ? operations.length : operations, status: 400, details: ['operations'],
      });
    }
    const unknown = await batch(t, admin.bearer, [line, { op: 'batch', operations: [line] }, { ...line, op: 'Receive' }, 7]);
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.details).sort()).toEqual(['operations[1].op', 'operations[2].op', 'operations[3]']);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toBeUndefined();
  });

  it('names every invalid field of every operation, the message at the lowest index', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const res = await batch(t, admin.bearer, [
      { op: 'receive', itemID: shortID, units: 1, wid: 1, reasonCode: 1 },
      { op: 'issue', itemID: shortID, units: 1.00001, wid: 1, reasonCode: 2 },
      { op: 'count', itemID: shortID, wid: 1, reasonCode: 5 },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Model validation failed. (operations[1])');
    expect(Object.keys(res.body.details).sort()).toEqual(['operations[1].units', 'operations[2].counted']);
  });

  it('checks kind by kind over the whole batch: permissions before bodies before scope before items', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const receiver = await givenClient(t, { permissions: [SecurityId.PositiveAdjustment], warehouses: [1] });
    const bad = { op: 'receive', itemID: shortID, units: -1, wid: 1, reasonCode: 1 };
    const outOfScope = { op: 'receive', itemID: shortID, units: 1, wid: 2, reasonCode: 1 };
    const noItem = { op: 'receive', itemID: 'NO-SUCH-ITEM', units: 1, wid: 1, reasonCode: 1 };
    const issue = { op: 'issue', itemID: shortID, units: 1, wid: 1, reasonCode: 2 };
    const permission = await batch(t, receiver.bearer, [noItem, outOfScope, bad, issue]);
    expect(permission.body).toMatchObject({ statusCode: 403, message: 'Insufficient permissions. (operations[3])' });
    const body = await batch(t, receiver.bearer, [noItem, outOfScope, bad]);
    expect(body.body).toMatchObject({ statusCode: 400, message: 'Model validation failed. (operations[2])' });
    const scope = await batch(t, receiver.bearer, [noItem, outOfScope]);
    expect(scope.body).toMatchObject({ statusCode: 403, message: "Warehouse is outside the client's authorized scope. (operations[1])" });
    const item = await batch(t, receiver.bearer, [noItem]);
    expect(item.body).toMatchObject({ statusCode: 400, details: { 'operations[0].itemID': [expect.stringContaining('NO-SUCH-ITEM')] } });
    const readOnly = await givenClient(t, { readOnly: true });
    expect((await batch(t, readOnly.bearer, [issue])).body).toMatchObject({ statusCode: 403, message: 'Account is read-only.' });
  });

  it('replays a keyed batch without doing it twice', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const ops = [{ op: 'receive', itemID: shortID, units: 2, wid: 1, reasonCode: 1 }];
    const first = await batch(t, admin.bearer, ops, 'batch-once');
    const again = await batch(t, admin.bearer, ops, 'batch-once');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 2 });
    const rows = await t.dataSource.query("SELECT COUNT(*) AS n FROM ledger_entry WHERE idempotencyKey = 'batch-once'");
    expect(Number(rows[0].n)).toBe(1);
  });

  it('40 concurrent batches, each issuing 3 units of three items in shuffled order: exactly 33 succeed, no deadlock, stock exact', async () => {
    const items: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { shortID } = await givenItem(t, admin.bearer);
      await givenStock(t, admin.bearer, { itemID: shortID, units: 100 });
      items.push(shortID);
    }
    const orders = [[0, 1, 2], [2, 1, 0], [1, 2, 0], [0, 2, 1], [2, 0, 1], [1, 0, 2]];
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, b) => batch(t, admin.bearer, orders[b % orders.length].map((i) => ({ op: 'issue', itemID: items[i], units: 3, wid: 1, reasonCode: 2 })))),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(33);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    for (const r of answers.filter((a) => a.status === 409)) expect(r.body.message).toMatch(/^Insufficient stock: .*\(operations\[\d\]\)$/);
    for (const shortID of items) expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 1 });
    await expectLedgerConsistent(t);
  });

  it('30 concurrent batches receiving into two warehouses in opposite orders: all succeed, counters exact (their rows taken once, in one order)', async () => {
    // Each item stocked in both warehouses first: a batch creating a stock-level row would wait on the one stock_count row of its warehouse, which would queue the batches.
    const items: string[] = [];
    for (let i = 0; i < 30; i++) {
      const { shortID } = await givenItem(t, admin.bearer);
      for (const wid of [1, 2]) await givenStock(t, admin.bearer, { itemID: shortID, units: 1, wid });
      items.push(shortID);
    }
    const answers = await Promise.all(
      items.map((itemID, b) =>
        batch(
          t,
          admin.bearer,
          Array.from({ length: 20 }, (_, i) => ({ op: 'receive', itemID, units: 1, wid: 1 + ((i + b) % 2), reasonCode: 1 })),
        ),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(items.map(() => 200));
    for (const itemID of items) {
      expect(await stockOf(t, admin.bearer, itemID, 1)).toMatchObject({ inStock: 11 });
      expect(await stockOf(t, admin.bearer, itemID, 2)).toMatchObject({ inStock: 11 });
    }
    await expectLedgerConsistent(t);
  });

  it('takes the most operations a batch may carry, 250, in one request', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    const ops = Array.from({ length: 250 }, () => ({ op: 'receive', itemID: shortID, units: 1, wid: 1, reasonCode: 1 }));
    const res = await request(t.http).post('/api/v1/Inventory/Batch').set('Authorization', admin.bearer).send({ operations: ops });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(250);
    expect(await stockOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 250 });
  });
});
