import { createHash } from 'node:crypto';
import { Controller, Global, Module, Post } from '@nestjs/common';
import request from 'supertest';
import { RequirePermission } from '../src/auth/guards.js';
import { SecurityId } from '../src/auth/security-id.js';
import { TransactionRunner } from '../src/database/transactions.js';
import { UnitOfWork } from '../src/http/unit-of-work.js';
import { IdempotencyRecord } from '../src/idempotency/idempotency.entity.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { batch, count, expectLedgerConsistent, givenStock, hold, issue, move, receive, release, stockOf } from './support/inventory.js';

const MAX = 99_999_999_999.9999;

/** A write that always meets a deadlock (errno 1213, as the driver reports it): retried until the budget is spent. */
@Controller('__conflicts/contended')
class ContendedController {
  constructor(private readonly tx: TransactionRunner) {}

  @Post()
  @UnitOfWork()
  @RequirePermission(SecurityId.PositiveAdjustment, 'probe')
  async write(): Promise<never> {
    return this.tx.run(async () => {
      throw Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { errno: 1213, code: 'ER_LOCK_DEADLOCK' });
    });
  }
}

@Global()
@Module({ controllers: [ContendedController] })
class ContendedModule {}

/**
 * DECISIONS "Errors" → "Conflicts": every 409 names its reason in `details`,
 * with the figures its message names, so a connector can branch without
 * reading English. One case per reason (batch_too_large: batch-limits.e2e-spec.ts).
 */
describe(`409 conflicts name their reason (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp({ imports: [ContendedModule], config: { txRetryBudgetMs: 50 } });
    admin = await givenClient(t, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  const conflict = (message: string, details: Record<string, unknown>) => ({ statusCode: 409, error: 'conflict', message, details });

  it('insufficient_stock: Issue, Move, Hold and Release name the item, warehouse, units asked and units there', async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID, units: 3 });
    const issued = await issue(t, admin.bearer, { itemID, units: 3.5 });
    expect(issued.body).toEqual(conflict(`Insufficient stock: requested 3.5 units of ${itemID} in warehouse 1, 3 available.`, { reason: 'insufficient_stock', itemID, wid: 1, requested: 3.5, available: 3 }));
    const moved = await move(t, admin.bearer, { itemID, units: 4, shipToWid: 2 });
    expect(moved.body.details).toEqual({ reason: 'insufficient_stock', itemID, wid: 1, requested: 4, available: 3 });
    // Release takes held units only: none are held.
    const released = await release(t, admin.bearer, { itemID, units: 1 });
    expect(released.body.details).toEqual({ reason: 'insufficient_stock', itemID, wid: 1, requested: 1, available: 0 });
    // A Hold of every matching unit where none match: `requested` is null (the message's "all matching").
    const none = await hold(t, admin.bearer, { itemID, spot: 'NOWHERE' });
    expect(none.body).toEqual(conflict(`Insufficient stock: requested all matching units of ${itemID} in warehouse 1, 0 available.`, { reason: 'insufficient_stock', itemID, wid: 1, requested: null, available: 0 }));
    expect((await stockOf(t, admin.bearer, itemID, 1))?.inStock).toBe(3);
  });

  it('insufficient_stock in a Batch: the failing operation index is added as `operation`', async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    const res = await batch(t, admin.bearer, [
      { op: 'receive', itemID, units: 2, wid: 1, reasonCode: 1 },
      { op: 'issue', itemID, units: 5, wid: 1, reasonCode: 2 },
    ]);
    expect(res.body).toEqual(
      conflict(`Insufficient stock: requested 5 units of ${itemID} in warehouse 1, 2 available. (operations[1])`, { reason: 'insufficient_stock', itemID, wid: 1, requested: 5, available: 2, operation: 1 }),
    );
    expect(res.headers['retry-after']).toBeUndefined();
  });

  it('duplicate_short_id: POST /Item with a shortID that exists, or one folding to it', async () => {
    const { shortID } = await givenItem(t, admin.bearer, { shortID: `Dup-${process.pid}` });
    const folded = shortID.toUpperCase();
    const res = await request(t.http).post('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: folded });
    expect(res.body).toEqual(conflict(`An item with shortID "${folded}" already exists.`, { reason: 'duplicate_short_id', shortID: folded }));
  });

  it('item_discontinued: Receive of a discontinued item', async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await request(t.http).delete(`/api/v1/Item/${itemID}`).set('Authorization', admin.bearer).expect(200);
    const res = await receive(t, admin.bearer, { itemID, units: 1 });
    expect(res.body).toEqual(conflict(`Item ${itemID} is discontinued; it cannot be received.`, { reason: 'item_discontinued', itemID }));
  });

  it('stock_bound: a Receive past the bound on an item’s stock names the bound', async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID, units: MAX });
    const res = await receive(t, admin.bearer, { itemID, units: 0.0001 });
    expect(res.body).toEqual(conflict(`Stock of ${itemID} across all warehouses would exceed ${MAX} units.`, { reason: 'stock_bound', bound: MAX }));
  });

  it('count_changed: a Count whose `expected` no longer matches names both figures', async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID, units: 12 });
    const res = await count(t, admin.bearer, { itemID, counted: 10, expected: 11.5 });
    expect(res.body).toEqual(conflict(`Count of ${itemID} in warehouse 1 expected 11.5 units on hand, but 12 are.`, { reason: 'count_changed', expected: 11.5, onHand: 12 }));
  });

  it('request_in_progress: an Idempotency-Key whose first request has not finished, with Retry-After', async () => {
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    const body = { itemID, units: 1, reasonCode: 1, wid: 1 };
    // What the service stores when it claims a key, for a request still running.
    const canonical = JSON.stringify({ itemID, reasonCode: 1, units: 1, wid: 1 });
    await t.dataSource.getRepository(IdempotencyRecord).insert({
      clientId: admin.clientId,
      keyHash: createHash('sha256').update('conflicts-in-flight').digest('hex'),
      requestHash: createHash('sha256').update(`POST /api/v1/Inventory/Receive ${canonical}`).digest('hex'),
      state: 'pending',
      status: null,
      body: null,
      created: new Date(),
    });
    const res = await receive(t, admin.bearer, body, 'conflicts-in-flight');
    expect(res.body).toEqual(conflict('A request with this Idempotency-Key is still in progress.', { reason: 'request_in_progress' }));
    expect(res.headers['retry-after']).toBe('1');
  });

  it('concurrent_change: the retry budget spent on transient failures, with Retry-After', async () => {
    const res = await request(t.http).post('/api/v1/__conflicts/contended').set('Authorization', admin.bearer).send({});
    expect(res.body).toEqual(conflict('The request met concurrent changes and could not be completed; retry it.', { reason: 'concurrent_change' }));
    expect(res.headers['retry-after']).toBe('1');
  });
});
