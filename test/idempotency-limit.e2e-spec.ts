import { randomBytes } from 'node:crypto';
import { Body, Controller, Global, Module, Post } from '@nestjs/common';
import request from 'supertest';
import { RequirePermission } from '../src/auth/guards.js';
import { SecurityId } from '../src/auth/security-id.js';
import { Idempotent } from '../src/http/idempotent.js';
import { STORED_ANSWER_LIMIT } from '../src/idempotency/idempotency.js';
import { IdempotencyModule } from '../src/idempotency/idempotency.module.js';
import { STORED_ANSWER_LIMIT_BYTES } from '../src/idempotency/stored-answer.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, issue, stockOf } from './support/inventory.js';
import { givenManyLots } from './support/many-lots.js';

const MiB = 1024 * 1024;
let calls = 0;

/** A keyed write whose answer is as large as asked: `x`s (which compress to nothing) or random text (which does not). */
@Controller('__large')
class LargeAnswerController {
  @Post()
  @Idempotent()
  @RequirePermission(SecurityId.PositiveAdjustment, 'probe')
  answer(@Body() body: { bytes: number; random: boolean }) {
    calls++;
    const filler = body.random ? randomBytes(Math.ceil((body.bytes * 3) / 4)).toString('base64') : 'x'.repeat(body.bytes);
    return { calls, filler };
  }
}

@Module({ imports: [IdempotencyModule], controllers: [LargeAnswerController] })
class LargeAnswerModule {}

/** A stored-answer limit of 4 KiB, so that an Issue over a few thousand lots passes it. */
@Global()
@Module({ providers: [{ provide: STORED_ANSWER_LIMIT, useValue: 4096 }], exports: [STORED_ANSWER_LIMIT] })
class SmallLimitModule {}

/**
 * DECISIONS "Idempotency-Key", EXTENSIONS "Batch": a stored answer over its
 * limit is never written, nothing is done twice, and no answer is a 5xx. The
 * operation answers in full; a replay answers in full from a compressed copy,
 * or, past the limit even compressed, with the same status and a short body
 * marked `Idempotent-Answer-Omitted: true`.
 */
describe(`Idempotency-Key answers over the stored-answer limit (${testDatabaseKind()})`, () => {
  const storedSizes = async (t: TestApp) => (await t.dataSource.query('SELECT LENGTH(body) AS n FROM idempotency_record')).map((r: { n: unknown }) => Number(r.n));

  describe('at the real limit', () => {
    let t: TestApp;
    let admin: TestClient;
    beforeAll(async () => {
      t = await startTestApp({ imports: [LargeAnswerModule] });
      admin = await givenClient(t, { warehouses: [1] });
    });
    afterAll(() => t.close());
    const send = (key: string, body: object) => request(t.http).post('/api/v1/__large').set('Authorization', admin.bearer).set('Idempotency-Key', key).send(body);

    it('is 8 MiB of column text on both databases', () => {
      expect(STORED_ANSWER_LIMIT_BYTES).toBe(8 * MiB);
    });

    it('replays a 17 MiB answer in full, stored compressed within the limit', async () => {
      const first = await send('large-17', { bytes: 17 * MiB, random: false });
      expect(first.status).toBe(201);
      expect(first.body.filler).toHaveLength(17 * MiB);
      const before = calls;
      const again = await send('large-17', { bytes: 17 * MiB, random: false });
      expect({ status: again.status, replayed: again.headers['idempotent-replayed'], omitted: again.headers['idempotent-answer-omitted'] }).toEqual({ status: 201, replayed: 'true', omitted: undefined });
      expect(again.body).toEqual(first.body);
      expect(calls).toBe(before);
      expect(Math.max(...(await storedSizes(t)))).toBeLessThanOrEqual(STORED_ANSWER_LIMIT_BYTES);
    });

    it('answers an answer still over the limit compressed in full, and replays its status with a short body', async () => {
      const first = await send('large-random', { bytes: 10 * MiB, random: true });
      expect(first.status).toBe(201);
      expect(first.body.filler.length).toBeGreaterThanOrEqual(10 * MiB);
      const before = calls;
      const again = await send('large-random', { bytes: 10 * MiB, random: true });
      expect({ status: again.status, replayed: again.headers['idempotent-replayed'], omitted: again.headers['idempotent-answer-omitted'] }).toEqual({ status: 201, replayed: 'true', omitted: 'true' });
      expect(again.body).toEqual({ message: expect.stringMatching(/^The first answer to this Idempotency-Key was too large to store/), answerBytes: expect.any(Number) });
      expect(again.body.answerBytes).toBeGreaterThan(10 * MiB);
      expect(calls).toBe(before);
      expect(Math.max(...(await storedSizes(t)))).toBeLessThanOrEqual(STORED_ANSWER_LIMIT_BYTES);
    });
  });

  describe('at a small limit', () => {
    let t: TestApp;
    let admin: TestClient;
    beforeAll(async () => {
      t = await startTestApp({ imports: [SmallLimitModule] });
      admin = await givenClient(t, { warehouses: [1] });
    });
    afterAll(async () => {
      await expectLedgerConsistent(t);
      await t.close();
    });

    it('an Issue over thousands of lots commits and answers in full; its replay issues nothing more', async () => {
      const { shortID: itemID } = await givenItem(t, admin.bearer);
      await givenManyLots(t, admin.bearer, admin.clientId, itemID, 3000, 1);
      const first = await issue(t, admin.bearer, { itemID, units: 3000 }, 'issue-many');
      expect(first.status).toBe(200);
      expect(first.body.lots).toHaveLength(3000);
      const ledger = async () => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM ledger_entry'))[0].n);
      const rows = await ledger();
      const again = await issue(t, admin.bearer, { itemID, units: 3000 }, 'issue-many');
      expect({ status: again.status, replayed: again.headers['idempotent-replayed'], omitted: again.headers['idempotent-answer-omitted'] }).toEqual({ status: 200, replayed: 'true', omitted: 'true' });
      expect(Object.keys(again.body)).toEqual(['message', 'answerBytes']);
      expect(await ledger()).toBe(rows);
      expect((await stockOf(t, admin.bearer, itemID, 1))?.inStock ?? 0).toBe(0);
      expect(Math.max(...(await storedSizes(t)))).toBeLessThanOrEqual(4096);
    });

    it('a small answer is stored and replayed as before', async () => {
      const { shortID: itemID } = await givenItem(t, admin.bearer);
      await request(t.http).post('/api/v1/Inventory/Receive').set('Authorization', admin.bearer).send({ itemID, units: 2, wid: 1, reasonCode: 1 }).expect(201);
      const first = await issue(t, admin.bearer, { itemID, units: 1 }, 'issue-one');
      const again = await issue(t, admin.bearer, { itemID, units: 1 }, 'issue-one');
      expect({ status: again.status, body: again.body, omitted: again.headers['idempotent-answer-omitted'] }).toEqual({ status: 200, body: first.body, omitted: undefined });
      expect((await stockOf(t, admin.bearer, itemID, 1))?.inStock).toBe(1);
    });
  });
});
