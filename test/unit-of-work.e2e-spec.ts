import { Body, Controller, Module, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import request from 'supertest';
import { Warehouse } from '../src/auth/auth.entities.js';
import { RequirePermission } from '../src/auth/guards.js';
import { Public } from '../src/http/route-access.js';
import { SecurityId } from '../src/auth/security-id.js';
import { Idempotent } from '../src/http/idempotent.js';
import { IdempotencyModule } from '../src/idempotency/idempotency.module.js';
import { IdempotencyRecord } from '../src/idempotency/idempotency.entity.js';
import { TransactionRunner } from '../src/database/transactions.js';
import { UnitOfWork } from '../src/http/unit-of-work.js';
import { Metrics } from '../src/metrics/metrics.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, receive, stockOf } from './support/inventory.js';

/** A write route of the test's own: two writes, each through its own `run`, and a step before commit. */
@Public()
@Controller('__unit')
class TwoWritesController {
  constructor(private readonly tx: TransactionRunner) {}

  @Post()
  @UnitOfWork()
  async write(@Body() body: { first: number; second: number; failStep?: boolean }, @Req() req: Request) {
    const warehouse = (wID: number) => ({ wID, name: `UOW ${wID}`, nameKey: `UOW ${wID}`, created: new Date() });
    await this.tx.run((ctx) => ctx.manager.insert(Warehouse, warehouse(body.first)));
    // Joined: the second run sees the first one's row, not yet committed.
    const seen = await this.tx.run(async (ctx) => {
      const visible = await ctx.manager.existsBy(Warehouse, { wID: body.first });
      await ctx.manager.insert(Warehouse, warehouse(body.second));
      return visible;
    });
    req.unitOfWork!.beforeCommit.push(async (tx, answer) => {
      if (body.failStep) throw new Error('the step before commit failed');
      await tx.manager.update(Warehouse, { wID: body.second }, { name: `UOW answered ${JSON.stringify(answer)}` });
    });
    return { seen };
  }
}

/** Attempts per warehouse number, across the retries of a request. */
const attempts = new Map<number, number>();

/**
 * A keyed write whose first `failures` attempts meet a deadlock (errno 1213,
 * as the driver reports it) after its first write: at the second `run`, or in
 * a step before commit, where a Galera certification failure would come.
 */
@Controller('__unit/flaky')
class FlakyController {
  constructor(private readonly tx: TransactionRunner) {}

  @Post()
  @Idempotent()
  @RequirePermission(SecurityId.PositiveAdjustment, 'probe')
  async write(@Body() body: { wid: number; failures: number; at: 'run' | 'commit' }, @Req() req: Request) {
    const attempt = (attempts.get(body.wid) ?? 0) + 1;
    attempts.set(body.wid, attempt);
    const deadlock = () => Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { errno: 1213, code: 'ER_LOCK_DEADLOCK' });
    await this.tx.run((ctx) => ctx.manager.insert(Warehouse, { wID: body.wid, name: `Flaky ${body.wid}`, nameKey: `flaky ${body.wid}`, created: new Date() }));
    if (body.at === 'run') {
      await this.tx.run(async () => {
        if (attempt <= body.failures) throw deadlock();
      });
    } else {
      req.unitOfWork!.beforeCommit.push(async () => {
        if (attempt <= body.failures) throw deadlock();
      });
    }
    return { attempt };
  }
}

/**
 * A keyed write whose claim is taken over while it works, as a retry of the same request does once a claim
 * has been pending past ABANDONED_MS: the claim row becomes another one's (a later `created`).
 */
@Controller('__unit/taken-over')
class TakenOverController {
  constructor(private readonly tx: TransactionRunner) {}

  @Post()
  @Idempotent()
  @RequirePermission(SecurityId.PositiveAdjustment, 'probe')
  async write(@Body() body: { wid: number }, @Req() req: Request) {
    const { clientId, keyHash } = req.idempotency!;
    const later = new Date(Math.floor(Date.now() / 1000) * 1000 + 120_000);
    await this.tx.alone((m) => m.update(IdempotencyRecord, { clientId, keyHash }, { created: later }));
    await this.tx.run((ctx) => ctx.manager.insert(Warehouse, { wID: body.wid, name: `Taken ${body.wid}`, nameKey: `taken ${body.wid}`, created: new Date() }));
    return { done: true };
  }
}

@Module({ imports: [IdempotencyModule], controllers: [TwoWritesController, FlakyController, TakenOverController] })
class TwoWritesModule {}

const kind = testDatabaseKind();
const REFUSE_DONE =
  kind === 'mysql'
    ? "CREATE TRIGGER refuse_done BEFORE UPDATE ON idempotency_record FOR EACH ROW BEGIN IF NEW.state = 'done' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused'; END IF; END"
    : "CREATE TRIGGER refuse_done BEFORE UPDATE ON idempotency_record WHEN NEW.state = 'done' BEGIN SELECT RAISE(ABORT, 'refused'); END";

/**
 * A write request is one unit of work: the service's writes, the stored
 * Idempotency-Key answer and any other step before commit commit together or
 * not at all. Failures are provoked in the real database (a trigger refusing
 * to store the answer), not by replacing any part of the service.
 */
describe(`the unit of work of a write request (${kind})`, () => {
  let t: TestApp;
  let client: TestClient;
  beforeAll(async () => {
    t = await startTestApp({ imports: [TwoWritesModule] });
    client = await givenClient(t, { warehouses: [1] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  const names = async (...wids: number[]) =>
    (await t.dataSource.getRepository(Warehouse).findBy(wids.map((wID) => ({ wID })))).map((w) => `${w.wID} ${w.name}`).sort();

  it('joins every run of a request into one transaction, and commits it with the steps before commit, which see the answer', async () => {
    const res = await request(t.http).post('/api/v1/__unit').send({ first: 501, second: 502 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ seen: true });
    expect(await names(501, 502)).toEqual(['501 UOW 501', '502 UOW answered {"seen":true}']);
  });

  it('rolls back the first run when the second fails', async () => {
    const res = await request(t.http).post('/api/v1/__unit').send({ first: 511, second: 502 });
    expect(res.status).toBe(500);
    expect(await names(511)).toEqual([]);
  });

  it('rolls back both runs when a step before commit fails', async () => {
    const res = await request(t.http).post('/api/v1/__unit').send({ first: 521, second: 522, failStep: true });
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('internal_error');
    expect(await names(521, 522)).toEqual([]);
  });

  describe('after a transient failure (a deadlock, a certification failure at commit)', () => {
    const flaky = (body: object, key?: string) => {
      const req = request(t.http).post('/api/v1/__unit/flaky').set('Authorization', client.bearer);
      return (key ? req.set('Idempotency-Key', key) : req).send(body);
    };

    /** db_transaction_retries_total{cause="deadlock"} as the metrics hold it now. */
    const deadlocksCounted = async () => (await t.app.get(Metrics).registry.getSingleMetric('db_transaction_retries_total')!.get()).values.find((v) => v.labels.cause === 'deadlock')?.value ?? 0;

    it.each(['run', 'commit'] as const)('runs the whole request again, from nothing, until it commits (failing at the %s), counting each failure', async (at) => {
      const wid = at === 'run' ? 601 : 602;
      const counted = await deadlocksCounted();
      const res = await flaky({ wid, failures: 2, at });
      expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: { attempt: 3 } });
      expect(await deadlocksCounted()).toBe(counted + 2);
      // The failed attempts' rows were rolled back: had they not been, the third insert of the same wID would have failed.
      expect(await names(wid)).toEqual([`${wid} Flaky ${wid}`]);
    });

    it('claims the Idempotency-Key afresh on each attempt, stores the answer of the one that commits, and replays it', async () => {
      const first = await flaky({ wid: 611, failures: 3, at: 'commit' }, 'flaky-611');
      expect({ status: first.status, body: first.body }).toEqual({ status: 201, body: { attempt: 4 } });
      const replay = await flaky({ wid: 611, failures: 3, at: 'commit' }, 'flaky-611');
      expect({ status: replay.status, body: replay.body, replayed: replay.headers['idempotent-replayed'] }).toEqual({ status: 201, body: { attempt: 4 }, replayed: 'true' });
      expect(attempts.get(611)).toBe(4);
    });

    it('answers 409 once the retry budget is spent, with nothing written and the key free for the client\'s retry', async () => {
      const started = Date.now();
      const res = await flaky({ wid: 621, failures: 1_000_000, at: 'commit' }, 'flaky-621');
      expect(res.body).toEqual({ statusCode: 409, error: 'conflict', message: 'The request met concurrent changes and could not be completed; retry it.', details: { reason: 'concurrent_change' } });
      expect(res.headers['retry-after']).toBe('1');
      expect(Date.now() - started).toBeLessThan(t.app.get(TransactionRunner).retryBudget.ms + 2000);
      expect(attempts.get(621)).toBeGreaterThan(3);
      expect(await names(621)).toEqual([]);
      // The same key and body, now that the contention is gone (the route fails only while attempts ≤ failures).
      attempts.set(621, 1_000_000);
      expect((await flaky({ wid: 621, failures: 1_000_000, at: 'commit' }, 'flaky-621')).status).toBe(201);
    });
  });

  it('commits nothing when its Idempotency-Key claim was taken over meanwhile, and leaves the other claim alone', async () => {
    const res = await request(t.http).post('/api/v1/__unit/taken-over').set('Authorization', client.bearer).set('Idempotency-Key', 'taken-over-1').send({ wid: 631 });
    expect({ status: res.status, reason: res.body.details?.reason }).toEqual({ status: 409, reason: 'request_in_progress' });
    expect(await names(631)).toEqual([]);
    // The claim that took over is still there, pending: only its own request may complete or free it.
    const pending = await t.dataSource.getRepository(IdempotencyRecord).findBy({ clientId: client.clientId, state: 'pending' });
    expect(pending.map((r) => r.created.getTime() > Date.now() + 60_000)).toEqual([true]);
  });

  describe('when the Idempotency-Key answer cannot be stored', () => {
    beforeEach(() => t.dataSource.query(REFUSE_DONE));
    afterEach(() => t.dataSource.query('DROP TRIGGER refuse_done'));

    it('a Receive changes nothing, and the key is free for the retry', async () => {
      const { shortID } = await givenItem(t, client.bearer);
      const failed = await receive(t, client.bearer, { itemID: shortID, units: 7 }, 'uow-receive');
      expect(failed.status).toBe(500);
      expect(failed.body.error).toBe('internal_error');
      expect(await stockOf(t, client.bearer, shortID, 1)).toBeUndefined();
      expect(Number((await t.dataSource.query("SELECT COUNT(*) AS n FROM ledger_entry WHERE idempotencyKey = 'uow-receive'"))[0].n)).toBe(0);

      await t.dataSource.query('DROP TRIGGER refuse_done');
      const retried = await receive(t, client.bearer, { itemID: shortID, units: 7 }, 'uow-receive');
      expect(retried.status).toBe(201);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      const replayed = await receive(t, client.bearer, { itemID: shortID, units: 7 }, 'uow-receive');
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.body).toEqual(retried.body);
      expect((await stockOf(t, client.bearer, shortID, 1))?.inStock).toBe(7);
      await t.dataSource.query(REFUSE_DONE);
    });

    it('POST /Item creates nothing, and the retry creates the item and stores its Location', async () => {
      const post = () => request(t.http).post('/api/v1/Item').set('Authorization', client.bearer).set('Idempotency-Key', 'uow-item').send({ shortID: 'UOW-ITEM' });
      const failed = await post();
      expect(failed.status).toBe(500);
      await request(t.http).get('/api/v1/Item?key=UOW-ITEM').set('Authorization', client.bearer).expect(404);

      await t.dataSource.query('DROP TRIGGER refuse_done');
      const created = await post();
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe(`/api/v1/Item/${created.body.partNo}`);
      const replayed = await post();
      expect(replayed.status).toBe(201);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.headers.location).toBe(created.headers.location);
      expect(replayed.body).toEqual(created.body);
      await t.dataSource.query(REFUSE_DONE);
    });
  });
});
