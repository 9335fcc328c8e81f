import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AdminService } from '../../src/auth/admin.service.js';
import { ALL_SECURITY_IDS, isWrite, SecurityId } from '../../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp } from '../app.factory.js';
import { givenClient, tokenFor, type TestClient } from '../support/auth.js';
import { givenItem } from '../support/catalog.js';
import { documentOf, givenAllocation, givenExpectation } from '../support/documents.js';
import { expectLedgerConsistent, givenStock, issue, lotsOf, receive, stockOf } from '../support/inventory.js';
import { ProbeModule } from '../support/probe.module.js';
import { cli, startReceiver, until } from '../support/webhooks.js';
import { WebhookService } from '../../src/events/webhooks.service.js';
import {
  ADMIN_PATHS, anotherApp, basicTokenRequest, DOCUMENT_ROUTES, documentedOps, type Fixture, get, HARDENED, hardening, inBatches, INVALID_CLIENT,
  INVALID_TOKEN, ITEM_FIELDS, levelOf, LOT_FIELDS, NO_PERMISSION, notFound, type OpenApiDocument, OUT_OF_SCOPE, PAGE_FIELDS, post,
  READ_ONLY, RECORD_ROUTES, ROUTES, servedRoutes, STOCK_FIELDS, TAMPERED, tokenRequest, TRANSACTION_FIELDS, WAREHOUSE_ROUTES,
} from './owasp-routes.js';
import { sleep } from './workload.js';

/**
 * The OWASP API Security Top 10 (2023), over real HTTP against the real
 * service on a real database, one describe per risk. API7 (SSRF) applies to
 * the webhook URLs only, the one place where the service fetches a URL; API10
 * (unsafe consumption of APIs) does not apply: the service consumes no other
 * API (a receiver's answer is read for its status only, at most 64 KiB). The
 * route tables and the expected answers are in owasp-routes.ts.
 */

let t: TestApp;
/** Every SecurityID, warehouses 1 to 3. */
let admin: TestClient;
let f: Fixture;

beforeAll(async () => {
  t = await startTestApp({ config: { accountCacheSeconds: 1 } });
  admin = await givenClient(t, { warehouses: [1, 2, 3] });
  const item = await givenItem(t, admin.bearer, { shortID: 'OWASP-1' });
  await givenItem(t, admin.bearer, { shortID: 'OWASP-GONE' });
  for (const wid of [1, 2, 3]) await givenStock(t, admin.bearer, { itemID: item.shortID, units: 1000, wid, spot: 'A' });
  await givenStock(t, admin.bearer, { itemID: item.shortID, units: 100, wid: 1, spot: 'H', hold: true });
  const allocate = async (units = 1) => Number((await givenAllocation(t, admin.bearer, { itemID: item.shortID, units, wid: 1 })).id);
  const expectUnits = async (units = 1) => Number((await givenExpectation(t, admin.bearer, { itemID: item.shortID, units, wid: 1 })).id);
  f = {
    shortID: item.shortID, partNo: item.partNo, gone: 'OWASP-GONE',
    allocation: await allocate(300), expectation: await expectUnits(100_000), allocate: () => allocate(), expect: () => expectUnits(),
  };
});
afterAll(async () => {
  try {
    await expectLedgerConsistent(t);
  } finally {
    await t?.close();
  }
});

describe(`API1:2023 Broken Object Level Authorization (${testDatabaseKind()})`, () => {
  /** Every SecurityID, warehouses 1 and 3 (not 2). */
  let scoped: TestClient;
  beforeAll(async () => {
    scoped = await givenClient(t, { warehouses: [1, 3] });
  });

  it.each(WAREHOUSE_ROUTES)('$name: a warehouse outside the scope is 403, whether or not it exists, and nothing changes', async ({ send, operation }) => {
    // In a batch the refusal names the operation.
    const body = operation === undefined ? OUT_OF_SCOPE : { ...OUT_OF_SCOPE, message: `${OUT_OF_SCOPE.message} (operations[${operation}])` };
    const before = await stockOf(t, admin.bearer, f.shortID, 2);
    for (const wid of [2, 99, 2_147_483_647]) {
      const res = await send(t, scoped.bearer, wid, f);
      expect({ wid, status: res.status, body: res.body }).toEqual({ wid, status: 403, body });
    }
    expect(await stockOf(t, admin.bearer, f.shortID, 2)).toEqual(before);
    // The same request on a warehouse in scope is served.
    expect((await send(t, scoped.bearer, 3, f)).status).toBeLessThan(300);
  });

  it.each(RECORD_ROUTES)('$name: a lot in a warehouse outside the scope is neither touched nor revealed', async ({ send, held }) => {
    const hold = held ?? false;
    const foreign = await givenStock(t, admin.bearer, { itemID: f.shortID, units: 5, wid: 2, spot: 'F', hold });
    const lotBefore = (await lotsOf(t, admin.bearer, f.shortID, 2)).find((l) => l.recNo === foreign);
    const refused = await send(t, scoped.bearer, foreign, f);
    const noSuchLot = await send(t, scoped.bearer, 2_000_000_000, f);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('conflict');
    // The same answer as for a record that does not exist: nothing tells that the lot is there.
    expect(refused.body).toEqual(noSuchLot.body);
    expect((await lotsOf(t, admin.bearer, f.shortID, 2)).find((l) => l.recNo === foreign)).toEqual(lotBefore);
    // The selector itself works on a lot in scope.
    const own = await givenStock(t, scoped.bearer, { itemID: f.shortID, units: 5, wid: 1, spot: 'O', hold });
    const served = await send(t, scoped.bearer, own, f);
    expect(served.status).toBe(200);
    expect(served.body.lots.map((l: { fromRecNo: number }) => l.fromRecNo)).toEqual([own]);
  });

  it.each(DOCUMENT_ROUTES)('$name: a document in a warehouse outside the scope answers as one that does not exist (404) and is unchanged; one in scope is served', async ({ kind, send, operation }) => {
    // The answer for an id that names no document, with the id it names: nothing tells the two apart.
    const missing = (id: number) => {
      const message = `No ${kind.toLowerCase()} ${id}.`;
      return { statusCode: 404, error: 'not_found', message: operation === undefined ? message : `${message} (operations[${operation}])`, details: null };
    };
    const unknown = 2147483647;
    const none = await send(t, scoped.bearer, unknown);
    expect({ status: none.status, body: none.body }).toEqual({ status: 404, body: missing(unknown) });
    const make = async (wid: number) => {
      // Units of its own to allocate (the warehouse routes above counted warehouse 3 down to 1).
      if (kind === 'Allocation') await givenStock(t, admin.bearer, { itemID: f.shortID, units: 5, wid, spot: 'D' });
      return Number((await (kind === 'Allocation' ? givenAllocation : givenExpectation)(t, admin.bearer, { itemID: f.shortID, units: 5, wid })).id);
    };
    const foreign = await make(2);
    const before = await documentOf(t, admin.bearer, kind, foreign);
    const levelBefore = await levelOf(t, admin.bearer, f.shortID, 2);
    const res = await send(t, scoped.bearer, foreign);
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: missing(foreign) });
    expect(await documentOf(t, admin.bearer, kind, foreign)).toEqual(before);
    expect(await levelOf(t, admin.bearer, f.shortID, 2)).toEqual(levelBefore);
    // Nor does a list of the client's warehouses show it.
    const listed = await get(t, scoped.bearer, `Inventory/${kind}s?pageSize=250&itemID=${f.shortID}&sort=id&direction=DESC`);
    expect((listed.body.value as Array<{ id: number }>).map((d) => d.id)).not.toContain(foreign);
    expect((await send(t, scoped.bearer, await make(3))).status).toBeLessThan(300);
  });

  it("lists without a wid show only the caller's warehouses: lots, stock levels and the ledger", async () => {
    const total = async (bearer: string, path: string) => (await get(t, bearer, `${path}?pageSize=250`)).body.totalCount as number;
    expect(await total(scoped.bearer, 'Inventory')).toBe((await total(admin.bearer, 'Inventory/1')) + (await total(admin.bearer, 'Inventory/3')));
    expect(await total(scoped.bearer, 'Inventory')).toBeLessThan(await total(admin.bearer, 'Inventory'));
    const lots = await get(t, scoped.bearer, 'Inventory?pageSize=250');
    expect(lots.body.value.length).toBeGreaterThan(0);
    for (const lot of lots.body.value as Array<{ wID: number }>) expect([1, 3]).toContain(lot.wID);

    const inStock = async (bearer: string, wid?: number) => (await stockOf(t, bearer, f.shortID, wid))!.inStock;
    expect(await inStock(scoped.bearer)).toBe((await inStock(admin.bearer, 1)) + (await inStock(admin.bearer, 3)));
    expect(await inStock(admin.bearer)).toBeGreaterThan(await inStock(scoped.bearer));

    const ledger = await get(t, scoped.bearer, 'Inventory/Transactions?pageSize=250');
    expect(ledger.body.value.length).toBeGreaterThan(0);
    for (const e of ledger.body.value as Array<{ fromWid: number | null; toWid: number | null }>) {
      expect([e.fromWid, e.toWid].some((w) => w === 1 || w === 3)).toBe(true);
    }
    expect(ledger.body.totalCount).toBeLessThan(await total(admin.bearer, 'Inventory/Transactions'));
  });

  it("replays an Idempotency-Key only to the client that used it, never another client's response", async () => {
    const body = { itemID: f.shortID, units: 2, spot: 'K' };
    const key = `owasp-key-${randomBytes(4).toString('hex')}`;
    const first = await receive(t, admin.bearer, body, key);
    const other = await receive(t, scoped.bearer, body, key);
    expect([first.status, other.status]).toEqual([201, 201]);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.recNo).not.toBe(first.body.recNo);
    const replay = await receive(t, admin.bearer, body, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });
});

describe(`API2:2023 Broken Authentication (${testDatabaseKind()})`, () => {
  const probe = (bearer: string) => get(t, bearer, 'Item/All');

  it('refuses a forged token: random, one character changed, the secret itself, or a real one with a suffix', async () => {
    const client = await givenClient(t, { permissions: [SecurityId.ItemMasterList] });
    const flipped = `${client.token.slice(0, 20)}${client.token[20] === 'A' ? 'B' : 'A'}${client.token.slice(21)}`;
    for (const forged of [randomBytes(32).toString('base64url'), flipped, client.clientSecret, `${client.token}x`]) {
      const res = await probe(`Bearer ${forged}`);
      expect({ forged, status: res.status, body: res.body }).toEqual({ forged, status: 401, body: INVALID_TOKEN });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="inventory", error="invalid_token"');
    }
    expect((await probe(client.bearer)).status).toBe(200);
  });

  it("stops a disabled client's token within ACCOUNT_CACHE_SECONDS (1 here) and gives it no new one", async () => {
    const client = await givenClient(t, { permissions: [SecurityId.ItemMasterList] });
    expect((await probe(client.bearer)).status).toBe(200);
    await t.app.get(AdminService).setDisabled(client.clientId, true);
    expect((await tokenRequest(t, client.clientId, client.clientSecret)).body).toEqual(INVALID_CLIENT);
    await sleep(1100);
    expect((await probe(client.bearer)).body).toEqual(INVALID_TOKEN);
  });

  it('keeps tokens issued before a secret rotation working, and refuses the old secret with 401 invalid_client', async () => {
    const client = await givenClient(t, { permissions: [SecurityId.ItemMasterList] });
    const rotated = await t.app.get(AdminService).rotateSecret(client.clientId);
    expect((await tokenRequest(t, client.clientId, client.clientSecret)).body).toEqual(INVALID_CLIENT);
    expect((await probe(client.bearer)).status).toBe(200);
    expect((await probe(`Bearer ${await tokenFor(t, client.clientId, rotated.clientSecret)}`)).status).toBe(200);
  });

  // Basic credentials go through passport's process-wide strategy registry, where the app started
  // last in this process answers them: so this runs before the describes below start their apps.
  it('answers an unknown client, a wrong secret and a disabled client alike, so accounts cannot be enumerated', async () => {
    const disabled = await givenClient(t);
    await t.app.get(AdminService).setDisabled(disabled.clientId, true);
    const attempts: Array<[string, string]> = [['c_nobody', admin.clientSecret], [admin.clientId, 'wrong'], [disabled.clientId, disabled.clientSecret], ['x'.repeat(5000), 'y']];
    for (const basic of [false, true]) {
      const answers = await Promise.all(attempts.map(([id, secret]) => (basic ? basicTokenRequest : tokenRequest)(t, id, secret)));
      for (const res of answers) {
        expect({ status: res.status, body: res.body, challenge: res.headers['www-authenticate'] }).toEqual({
          status: 401, body: INVALID_CLIENT, challenge: basic ? 'Basic realm="inventory"' : undefined,
        });
      }
    }
  });

  describe('with TOKEN_TTL_SECONDS=2', () => {
    const other = anotherApp({ config: { tokenTtlSeconds: 2 } });
    it('refuses an expired token with 401; the client must get a new one', async () => {
      const short = other.app;
      const client = await givenClient(short, { permissions: [SecurityId.ItemMasterList] });
      expect((await get(short, client.bearer, 'Item')).status).toBe(200);
      await sleep(2100);
      const expired = await get(short, client.bearer, 'Item');
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual({ statusCode: 401, error: 'unauthorized', message: 'The access token has expired; request a new one.', details: null });
      expect((await get(short, `Bearer ${await tokenFor(short, client.clientId, client.clientSecret)}`, 'Item')).status).toBe(200);
    });
  });

  describe('with RATE_LIMIT_PER_MINUTE=5', () => {
    const other = anotherApp({ config: { rateLimitPerMinute: 5 } });
    it('limits secret guessing on POST /Token per address: 429 after 5 tries, then even for the right secret or a forged X-Forwarded-For', async () => {
      const limited = other.app;
      const { clientId, clientSecret } = limited.admin!;
      for (let i = 0; i < 5; i++) expect((await tokenRequest(limited, clientId, `guess-${i}`)).body).toEqual(INVALID_CLIENT);
      const tooMany = { status: 429, body: { message: 'Rate limit exceeded: 5 requests per minute.' } };
      for (const res of [
        await tokenRequest(limited, clientId, 'guess-5'),
        await tokenRequest(limited, clientId, clientSecret),
        await tokenRequest(limited, clientId, clientSecret).set('X-Forwarded-For', '203.0.113.7').set('X-Real-IP', '203.0.113.7'),
        await basicTokenRequest(limited, clientId, clientSecret),
      ]) {
        expect({ status: res.status, body: res.body }).toEqual(tooMany);
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    });
  });
});

describe(`API3:2023 Broken Object Property Level Authorization (${testDatabaseKind()})`, () => {
  const FORGED = { partNo: 999_999, created: '2001-01-01T00:00:00.000Z', createdBy: 'mallory', modified: '2001-01-01T00:00:00.000Z' };
  const byKey = async (shortID: string) => (await get(t, admin.bearer, `Item?key=${shortID}`)).body;
  const nameOf = async (c: TestClient) => ((await t.dataSource.query('SELECT name FROM integration_client WHERE clientId = ?', [c.clientId])) as Array<{ name: string }>)[0].name;

  it('ignores partNo, created, createdBy and modified sent to POST /Item: the stored values are the server\'s', async () => {
    const started = Date.now() - 1000;
    const res = await post(t, admin.bearer, 'Item', { shortID: 'OWASP-MASS-1', ...FORGED });
    expect(res.status).toBe(201);
    const stored = await byKey('OWASP-MASS-1');
    expect(stored.partNo).not.toBe(FORGED.partNo);
    expect(res.headers.location).toBe(`/api/v1/Item/${stored.partNo}`);
    expect(stored.createdBy).toBe(await nameOf(admin));
    for (const field of ['created', 'modified'] as const) expect(Date.parse(stored[field])).toBeGreaterThanOrEqual(started);
    expect(res.body).toEqual({ status: 'created', ...stored });
    expect((await get(t, admin.bearer, `Item/${FORGED.partNo}`)).status).toBe(404);
  });

  it('ignores them on PUT /Item too: partNo, created and createdBy are kept, modified is the server\'s', async () => {
    const before = await byKey('OWASP-MASS-1');
    const editor = await givenClient(t, { permissions: [SecurityId.ModifyItemMaster] });
    const res = await request(t.http).put('/api/v1/Item').set('Authorization', editor.bearer).send({ shortID: 'OWASP-MASS-1', description: 'changed', ...FORGED });
    expect(res.status).toBe(200);
    const after = await byKey('OWASP-MASS-1');
    expect(after).toEqual({ ...before, description: 'changed', modified: after.modified });
    expect(Date.parse(after.modified)).toBeGreaterThanOrEqual(Date.parse(before.modified));
  });

  it('ignores recNo, shipped, active, received and the other lot fields the server owns, sent to Receive', async () => {
    const started = Date.now() - 1000;
    const { description } = await byKey(f.shortID);
    const res = await post(t, admin.bearer, 'Inventory/Receive', {
      itemID: f.shortID, units: 3, wid: 1, reasonCode: 1,
      recNo: 1, shipped: '2001-01-01T00:00:00.000Z', active: false, received: '2001-01-01T00:00:00.000Z',
      partNo: FORGED.partNo, shortID: 'OTHER', description: 'forged', warehouse: 'Elsewhere', associate: 'mallory', jobName: 'forged',
    });
    expect(res.status).toBe(201);
    expect(res.body.recNo).not.toBe(1);
    expect(res.body.lot).toMatchObject({
      recNo: res.body.recNo, partNo: f.partNo, shortID: f.shortID, description, wID: 1, warehouse: 'Main', associate: '', jobName: '', shipped: null, active: true,
    });
    expect(Date.parse(res.body.lot.received)).toBeGreaterThanOrEqual(started);
    expect((await lotsOf(t, admin.bearer, f.shortID, 1)).find((l) => l.recNo === res.body.recNo)).toEqual(res.body.lot);
    // The Lot's own spelling `wID` is the body's `wid` (field names match in any case): sent beside it, the request is refused whole.
    const lots = (await lotsOf(t, admin.bearer, f.shortID)).length;
    const twice = await post(t, admin.bearer, 'Inventory/Receive', { itemID: f.shortID, units: 3, wid: 1, wID: 2, reasonCode: 1 });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ error: 'validation_error', details: { wid: [expect.stringMatching(/more than once/)] } });
    expect((await lotsOf(t, admin.bearer, f.shortID)).length).toBe(lots);
  });

  it("answers exactly the spec's fields in the spec's order, and nothing internal", async () => {
    const item = (await get(t, admin.bearer, `Item/${f.partNo}`)).body;
    const created = (await post(t, admin.bearer, 'Item', { shortID: 'OWASP-KEYS-1' })).body;
    const received = (await receive(t, admin.bearer, { itemID: f.shortID, units: 2, wid: 1 })).body;
    const issued = (await issue(t, admin.bearer, { itemID: f.shortID, units: 1, wid: 1 })).body;
    const moved = (await post(t, admin.bearer, 'Inventory/Move', { itemID: f.shortID, units: 1, wid: 1, shipToWid: 3 })).body;
    const held = (await post(t, admin.bearer, 'Inventory/Hold', { itemID: f.shortID, units: 1, wid: 1, spot: 'A', reasonCode: 3 })).body;
    const released = (await post(t, admin.bearer, 'Inventory/Release', { itemID: f.shortID, units: 1, wid: 1, spot: 'A', reasonCode: 4 })).body;
    const page = async (path: string) => (await get(t, admin.bearer, path)).body;
    const [items, lots, stock, ledger] = await Promise.all(['Item', 'Inventory', 'Inventory/StockLevels', 'Inventory/Transactions'].map(page));
    const token = (await tokenRequest(t, admin.clientId, admin.clientSecret)).body;
    const shapes: Array<[string, unknown, string[]]> = [
      ['GET /Item/<partNo>', item, ITEM_FIELDS],
      ['GET /Item?key=', await byKey(f.shortID), ITEM_FIELDS],
      ['GET /Item?Category=', (await page('Item?Category=0'))[0], ITEM_FIELDS],
      ['GET /Item', items, PAGE_FIELDS],
      ['GET /Item value', items.value[0], ITEM_FIELDS],
      ['POST /Item', created, ['shortID', 'status', ...ITEM_FIELDS.filter((k) => k !== 'shortID')]],
      ['POST /Inventory/Receive', received, ['status', 'recNo', 'lot']],
      ['POST /Inventory/Receive lot', received.lot, LOT_FIELDS],
      ['GET /Inventory value', lots.value[0], LOT_FIELDS],
      ['GET /Inventory/StockLevels value', stock.value[0], STOCK_FIELDS],
      ['GET /Inventory/Transactions value', ledger.value[0], TRANSACTION_FIELDS],
      ['POST /Inventory/Issue', issued, ['status', 'units', 'lots']],
      ['POST /Inventory/Issue lots', issued.lots[0], ['recNo', 'fromRecNo', 'units']],
      ['POST /Inventory/Move', moved, ['status', 'units', 'lots']],
      ['POST /Inventory/Move lots', moved.lots[0], ['recNo', 'fromRecNo', 'units', 'wid', 'spot']],
      ['POST /Inventory/Hold', held, ['status', 'units', 'lots']],
      ['POST /Inventory/Release lots', released.lots[0], ['recNo', 'fromRecNo', 'units']],
      ['POST /Token', token, ['access_token', 'token_type', 'expires_in']],
    ];
    for (const [name, body, fields] of shapes) expect({ name, keys: Object.keys(body as object) }).toEqual({ name, keys: fields });
    const all = JSON.stringify(shapes.map(([, body]) => body));
    for (const secret of [admin.clientSecret, admin.token, 'Hash', 'Key"', 'secret', 'password', 'idempotency', 'poLine', 'extra"']) expect(all).not.toContain(secret);
  });
});

describe(`API4:2023 Unrestricted Resource Consumption (${testDatabaseKind()})`, () => {
  const BULK = 255;
  /** A raw JSON body, with the admin token unless `bearer` is null. */
  const json = (method: 'post' | 'put', path: string, body: string, bearer: string | null = admin.bearer) => {
    const req = request(t.http)[method](`/api/v1/${path}`).set('Content-Type', 'application/json');
    return (bearer ? req.set('Authorization', bearer) : req).send(body);
  };
  beforeAll(async () => {
    // Over 250 items, lots, stock rows and ledger rows, so that a capped page is a full one.
    await inBatches(BULK, 8, async (i) => {
      const { shortID } = await givenItem(t, admin.bearer, { shortID: `OWASP-BULK-${i}` });
      await givenStock(t, admin.bearer, { itemID: shortID, units: 1, wid: 1 });
    });
  });

  it.each(['Item', 'Item/All', 'Inventory', 'Inventory/1', 'Inventory/StockLevels', 'Inventory/StockLevels/1', 'Inventory/Transactions'])(
    'GET /%s caps a pageSize above 250 at 250, and says so',
    async (path) => {
      const res = await get(t, admin.bearer, `${path}?pageSize=1000000`);
      expect(res.status).toBe(200);
      expect({ pageSize: res.body.pageSize, header: res.headers['x-page-size'], rows: res.body.value.length, hasMore: res.body.hasMore }).toEqual({
        pageSize: 250, header: '250', rows: 250, hasMore: true,
      });
      expect(res.body.totalCount).toBeGreaterThan(250);
    },
  );

  it('refuses a body over 1 MiB with 413 payload_too_large, JSON or form, with or without a token', async () => {
    const big = JSON.stringify({ shortID: 'OWASP-BIG', itemID: f.shortID, units: 1, wid: 1, reasonCode: 1, description: 'x'.repeat(1024 * 1024) });
    const TOO_LARGE = { statusCode: 413, error: 'payload_too_large', message: 'Request body is larger than 1 MiB.', details: null };
    const answers = [
      await json('post', 'Item', big),
      await json('put', 'Item', big),
      await json('post', 'Inventory/Receive', big),
      await json('post', 'Item', big, null),
      await request(t.http).post('/api/v1/Token').type('form').send(`grant_type=client_credentials&client_id=x&client_secret=${'y'.repeat(1024 * 1024)}`),
    ];
    for (const res of answers) expect({ status: res.status, body: res.body }).toEqual({ status: 413, body: TOO_LARGE });
    expect((await get(t, admin.bearer, 'Item?key=OWASP-BIG')).status).toBe(404);
  });

  it('answers deeply nested JSON with 400 bad_request, never 500', async () => {
    const deep = (open: string, close: string, n: number) => `${open.repeat(n)}1${close.repeat(n)}`;
    const body = (remark: string) => `{"shortID":"OWASP-DEEP","itemID":"${f.shortID}","units":1,"wid":1,"reasonCode":1,"remark":${remark}}`;
    // The same body with a flat remark is accepted: only the nesting is refused.
    expect((await json('post', 'Inventory/Receive', body('"flat"'))).status).toBe(201);
    for (const nested of [deep('{"a":', '}', 40), deep('{"a":', '}', 10_000), deep('{"a":', '}', 150_000), deep('[', ']', 400_000)]) {
      for (const path of ['Item', 'Inventory/Receive', 'Token']) {
        const res = await json('post', path, body(nested));
        expect({ path, depth: nested.length, status: res.status, error: res.body.error, details: res.body.details }).toEqual({
          path, depth: nested.length, status: 400, error: 'bad_request', details: null,
        });
      }
    }
  });

  it('answers over-long strings in bodies, query parameters, paths and headers with 4xx, never 500', async () => {
    const long = 'x'.repeat(100_000);
    const fieldError = async (res: request.Test, field: string) => {
      const r = await res;
      return { status: r.status, error: r.body.error, fields: r.body.details && Object.keys(r.body.details).includes(field) };
    };
    const invalid = { status: 400, error: 'validation_error', fields: true };
    expect(await fieldError(post(t, admin.bearer, 'Item', { shortID: long }), 'shortID')).toEqual(invalid);
    expect(await fieldError(post(t, admin.bearer, 'Item', { shortID: 'OWASP-LONG', description: long }), 'description')).toEqual(invalid);
    expect(await fieldError(receive(t, admin.bearer, { itemID: long, units: 1 }), 'itemID')).toEqual(invalid);
    expect(await fieldError(receive(t, admin.bearer, { itemID: f.shortID, units: 1, remark: long }), 'remark')).toEqual(invalid);
    expect(await fieldError(get(t, admin.bearer, `Item?key=${'k'.repeat(5000)}`), 'key')).toEqual(invalid);
    expect(await fieldError(get(t, admin.bearer, `Inventory?itemID=${'k'.repeat(5000)}`), 'itemID')).toEqual(invalid);
    for (const path of [`Item/${'9'.repeat(5000)}`, `Inventory/${'9'.repeat(5000)}`]) expect((await get(t, admin.bearer, path)).status).toBe(404);
    expect((await tokenRequest(t, long, long)).body).toEqual(INVALID_CLIENT);
    expect((await get(t, `Bearer ${'A'.repeat(10_000)}`, 'Item')).body).toEqual(INVALID_TOKEN);
    const id = await get(t, admin.bearer, 'Item').set('X-Request-Id', 'r'.repeat(10_000));
    expect(id.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses an Idempotency-Key over 255 characters with 400 and does nothing; 255 is accepted', async () => {
    const KEY_ERROR = { statusCode: 400, error: 'validation_error', message: 'Model validation failed.', details: { 'Idempotency-Key': ['Idempotency-Key must be 1 to 255 printable characters'] } };
    const ledgerSize = async () => (await get(t, admin.bearer, 'Inventory/Transactions?pageSize=1')).body.totalCount as number;
    const before = await ledgerSize();
    const item = await post(t, admin.bearer, 'Item', { shortID: 'OWASP-IDEM' }).set('Idempotency-Key', 'k'.repeat(256));
    const stock = await receive(t, admin.bearer, { itemID: f.shortID, units: 1 }, 'k'.repeat(256));
    for (const res of [item, stock]) expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: KEY_ERROR });
    expect((await get(t, admin.bearer, 'Item?key=OWASP-IDEM')).status).toBe(404);
    expect(await ledgerSize()).toBe(before);
    expect((await post(t, admin.bearer, 'Item', { shortID: 'OWASP-IDEM' }).set('Idempotency-Key', 'k'.repeat(255))).status).toBe(201);
  });

  describe('with RATE_LIMIT_PER_MINUTE=5', () => {
    const other = anotherApp({ config: { rateLimitPerMinute: 5 } });
    it('answers a client\'s 6th request in a minute with 429, the exact body and Retry-After; another client is not affected', async () => {
      const limited = other.app;
      const a = await givenClient(limited, { permissions: [SecurityId.ItemMasterList] });
      const b = await givenClient(limited, { permissions: [SecurityId.ItemMasterList] });
      for (let i = 0; i < 5; i++) expect((await get(limited, a.bearer, 'Item')).status).toBe(200);
      const over = await get(limited, a.bearer, 'Item');
      expect(over.status).toBe(429);
      expect(over.text).toBe('{"message":"Rate limit exceeded: 5 requests per minute."}');
      const retryAfter = Number(over.headers['retry-after']);
      expect(retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expect((await get(limited, b.bearer, 'Item')).status).toBe(200);
    });
  });
});

describe(`API5:2023 Broken Function Level Authorization (${testDatabaseKind()})`, () => {
  const GROUPS: Array<SecurityId | 'none'> = [...ALL_SECURITY_IDS, 'none'];
  const clients = new Map<SecurityId | 'none', TestClient>();
  let readOnly: TestClient;
  beforeAll(async () => {
    for (const group of GROUPS) clients.set(group, await givenClient(t, { permissions: group === 'none' ? [] : [group] }));
    readOnly = await givenClient(t, { readOnly: true });
  });
  const outcome = (res: request.Response) => (res.status < 300 ? 'allowed' : { status: res.status, body: res.body });
  const refused = (body: object) => ({ status: 403, body });

  it.each(ROUTES)('$name: only the group holding SecurityID $permission may call it; any other gets 403 "Insufficient permissions."', async (route) => {
    const answers: Array<[SecurityId | 'none', unknown]> = [];
    for (const group of GROUPS) answers.push([group, outcome(await route.send(t, clients.get(group)!.bearer, f))]);
    const documented = route.securityIds ?? [route.permission].flat();
    // A group the route takes but this request's operations do not is refused by the operation, naming it.
    const expected = (group: SecurityId | 'none') =>
      [route.permission].flat().includes(group as SecurityId) ? 'allowed' : refused(documented.includes(group as SecurityId) ? { ...NO_PERMISSION, message: `${NO_PERMISSION.message} (operations[0])` } : NO_PERMISSION);
    expect(answers).toEqual(GROUPS.map((group) => [group, expected(group)]));
  });

  it.each(ROUTES)('$name: a read-only account holding every SecurityID may read, and gets 403 "Account is read-only." for a write', async (route) => {
    expect(outcome(await route.send(t, readOnly.bearer, f))).toEqual([route.permission].flat().some(isWrite) ? refused(READ_ONLY) : 'allowed');
  });

  it('answers methods no route serves (PATCH /Item, DELETE /Inventory/Receive, …) with 404, and writes nothing', async () => {
    const sizes = () => Promise.all(['Item/All', 'Inventory', 'Inventory/Transactions'].map(async (p) => (await get(t, admin.bearer, `${p}?pageSize=1`)).body.totalCount));
    const before = await sizes();
    const body = { shortID: f.shortID, itemID: f.shortID, units: 1, wid: 1, reasonCode: 1, toSpot: 'T', discontinued: true };
    for (const [method, path] of TAMPERED) {
      const res = await request(t.http)[method](path).set('Authorization', admin.bearer).send(body);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: notFound(method, path) });
    }
    // Method-override headers and parameters are not honoured either.
    const overridden = await get(t, admin.bearer, `Item/${f.partNo}?_method=DELETE`)
      .set('X-HTTP-Method-Override', 'DELETE').set('X-HTTP-Method', 'DELETE').set('X-Method-Override', 'DELETE');
    expect(overridden.status).toBe(200);
    expect((await get(t, admin.bearer, `Item/${f.partNo}`)).body.discontinued).toBe(false);
    expect(await sizes()).toEqual(before);
  });

  it('offers no administration over HTTP (clients, groups, warehouses and aliases are CLI-only)', async () => {
    for (const path of ADMIN_PATHS) {
      for (const method of ['get', 'post'] as const) {
        const res = await request(t.http)[method](path).set('Authorization', admin.bearer).send({ name: 'mallory', group: 'admin', warehouses: '1,2,3' });
        expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: notFound(method, path) });
      }
    }
  });
});

describe(`API6:2023 Unrestricted Access to Sensitive Business Flows (${testDatabaseKind()})`, () => {
  // The sensitive flow is taking stock out: no burst of requests may oversell it,
  // and no burst of retries may issue twice.
  it('never oversells: of 20 concurrent issues of 1 unit against 10 units, exactly 10 succeed and 10 are 409', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: shortID, units: 10, wid: 1 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => issue(t, admin.bearer, { itemID: shortID, units: 1 })));
    const count = (status: number) => answers.filter((r) => r.status === status).length;
    expect({ ok: count(200), conflict: count(409), other: 20 - count(200) - count(409) }).toEqual({ ok: 10, conflict: 10, other: 0 });
    for (const res of answers.filter((r) => r.status === 409)) expect(res.body.error).toBe('conflict');
    expect(await levelOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 0, available: 0 });
    await expectLedgerConsistent(t);
  });

  it('issues once for 10 concurrent retries carrying one Idempotency-Key', async () => {
    const { shortID } = await givenItem(t, admin.bearer);
    await givenStock(t, admin.bearer, { itemID: shortID, units: 5, wid: 1 });
    const key = `owasp-retry-${randomBytes(4).toString('hex')}`;
    const answers = await Promise.all(Array.from({ length: 10 }, () => issue(t, admin.bearer, { itemID: shortID, units: 1 }, key)));
    const ok = answers.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((r) => r.status !== 200).map((r) => r.body.message)).toEqual(
      answers.filter((r) => r.status !== 200).map(() => 'A request with this Idempotency-Key is still in progress.'),
    );
    expect(new Set(ok.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(await levelOf(t, admin.bearer, shortID, 1)).toMatchObject({ inStock: 4 });
  });
});

describe(`API7:2023 Server Side Request Forgery (${testDatabaseKind()})`, () => {
  // webhook:create as an operator runs it, without WEBHOOK_ALLOW_PRIVATE: every target that is not public unicast is refused.
  it.each([
    'http://127.0.0.1/',
    'http://127.255.0.1:8080/x',
    'http://10.0.0.1/',
    'http://172.31.1.1/',
    'http://192.168.0.1/',
    'http://100.64.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.0.0.1/',
    'http://localhost/',
    // Not globally reachable by IANA's special-purpose registries, or an IPv6 form of such an IPv4 address.
    'http://[::127.0.0.1]:4150/',
    'http://[::a9fe:a9fe]/',
    'http://[fec0::1]/',
    'http://[100::1]/',
    'http://[::1.2.3.4]/',
    'http://198.18.0.1/',
    'http://240.0.0.1/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::1]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
  ])('webhook:create refuses %s', async (url) => {
    const r = cli(t.database.url, ['webhook:create', '--client-id', admin.clientId, '--url', url]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: the URL resolves to .*non-public address/);
  });

  it.each(['file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO', 'http://admin:pw@example.com/', 'javascript:alert(1)'])('webhook:create refuses %s', async (url) => {
    const r = cli(t.database.url, ['webhook:create', '--client-id', admin.clientId, '--url', url]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: --url must/);
  });

  it('follows no redirect: a 302 to another address is a failed attempt, and the other address gets nothing', async () => {
    const target = await startReceiver();
    const redirecting = await startReceiver(() => ({ status: 302, headers: { location: target.url } }));
    try {
      const sub = await t.app.get(WebhookService).create({ clientId: admin.clientId, url: redirecting.url, types: 'item.created' });
      await givenItem(t, admin.bearer);
      await until(async () => (await t.app.get(WebhookService).deliveries(String(sub.id))).deliveries.length > 0);
      await sleep(300);
      const [attempt] = (await t.app.get(WebhookService).deliveries(String(sub.id))).deliveries;
      expect(attempt).toMatchObject({ attempt: 1, status: 302, error: 'HTTP 302' });
      expect(redirecting.received).toHaveLength(1);
      expect(target.received).toHaveLength(0);
      await t.app.get(WebhookService).delete(String(sub.id));
    } finally {
      await redirecting.close();
      await target.close();
    }
  });
});

describe(`API8:2023 Security Misconfiguration (${testDatabaseKind()})`, () => {
  it('sends the security headers, and no X-Powered-By, on a success, a 401, a 404, a 413, the document and the docs page', async () => {
    const answers = {
      success: await get(t, admin.bearer, 'Item'),
      unauthorized: await request(t.http).get('/api/v1/Item'),
      notFound: await request(t.http).get('/api/v1/NoSuchThing'),
      tooLarge: await request(t.http).post('/api/v1/Item').set('Content-Type', 'application/json').send(`"${'x'.repeat(1024 * 1024 + 1)}"`),
      document: await request(t.http).get('/api/v1/openapi.json'),
      docsPage: await request(t.http).get('/api/docs/'),
    };
    expect(Object.entries(answers).map(([name, res]) => [name, res.status])).toEqual([
      ['success', 200], ['unauthorized', 401], ['notFound', 404], ['tooLarge', 413], ['document', 200], ['docsPage', 200],
    ]);
    for (const [name, res] of Object.entries(answers)) expect({ name, ...hardening(res) }).toEqual({ name, ...HARDENED });
  });

  describe('with a route that fails unexpectedly (the test probe routes)', () => {
    const probed = anotherApp({ imports: [ProbeModule] });
    it('answers a 500 with the generic error object: no stack trace, no internal detail', async () => {
      const res = await request(probed.app.http).get('/api/v1/__probe/fail');
      expect(res.status).toBe(500);
      expect(res.text).toBe('{"statusCode":500,"error":"internal_error","message":"An unexpected error occurred.","details":null}');
      expect(hardening(res)).toEqual(HARDENED);
    });
  });

  it('marks every POST /Token answer Cache-Control: no-store and Pragma: no-cache', async () => {
    const answers = [
      await tokenRequest(t, admin.clientId, admin.clientSecret),
      await tokenRequest(t, admin.clientId, 'wrong'),
      await request(t.http).post('/api/v1/Token').type('form').send({ grant_type: 'password' }),
    ];
    expect(answers.map((r) => [r.status, r.headers['cache-control'], r.headers.pragma])).toEqual([
      [200, 'no-store', 'no-cache'], [401, 'no-store', 'no-cache'], [400, 'no-store', 'no-cache'],
    ]);
  });

  it('grants no cross-origin access: no Access-Control-Allow-* on a request or a preflight from another origin', async () => {
    const origin = 'https://evil.example';
    const simple = await get(t, admin.bearer, 'Item').set('Origin', origin);
    const preflight = await request(t.http).options('/api/v1/Item').set('Origin', origin)
      .set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'authorization,content-type');
    expect([simple.status, preflight.status]).toEqual([200, 404]);
    for (const res of [simple, preflight]) expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('does not serve TRACE, and echoes nothing of the request', async () => {
    for (const path of ['/api/v1/Item', '/health', '/api/v1/Token']) {
      const res = await request(t.http).trace(path).set('Authorization', admin.bearer).set('X-Secret-Header', 'do-not-echo');
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: notFound('trace', path) });
      expect(res.text).not.toContain(admin.token);
      expect(res.text).not.toContain('do-not-echo');
    }
  });
});

describe(`API9:2023 Improper Inventory Management (${testDatabaseKind()})`, () => {
  let doc: OpenApiDocument;
  beforeAll(async () => {
    doc = (await request(t.http).get('/api/v1/openapi.json')).body;
  });
  const documented = () => documentedOps(doc);

  it('documents exactly the routes served (the document and its docs page aside)', () => {
    expect(servedRoutes(t).length).toBeGreaterThanOrEqual(ROUTES.length);
    expect(documented()).toEqual(servedRoutes(t));
  });

  it('documents for each route the SecurityID it enforces, and the route table here covers every secured operation', () => {
    for (const route of ROUTES) {
      const [method, path] = route.op.split(' ');
      expect({ op: route.op, securityId: doc.paths[path]?.[method]?.['x-security-id'] }).toEqual({ op: route.op, securityId: route.securityIds ?? route.permission });
    }
    const secured = documented().filter((op) => { const [m, p] = op.split(' '); return doc.paths[p][m]['x-security-id'] !== undefined; });
    expect([...new Set(ROUTES.map((r) => r.op))].sort()).toEqual(secured);
  });

  it('declares every security scheme its operations name, as the service does it (Basic on POST /Token, opaque bearer tokens)', () => {
    const schemes = doc.components.securitySchemes;
    const named = Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => (op.security ?? []).flatMap((s) => Object.keys(s))));
    expect([...new Set(named)].sort()).toEqual(['basic', 'bearer']);
    expect(Object.keys(schemes).sort()).toEqual(['basic', 'bearer']);
    expect({ basic: schemes.basic.scheme, bearer: schemes.bearer.scheme, bearerFormat: schemes.bearer.bearerFormat }).toEqual({ basic: 'basic', bearer: 'bearer', bearerFormat: 'opaque' });
  });

  it('answers every documented operation, called with a token, with something other than 404 or 5xx', async () => {
    const closed = { allocation: await f.allocate(), expectation: await f.expect() };
    expect((await post(t, admin.bearer, `Inventory/Allocations/${closed.allocation}/Cancel`, {})).status).toBe(200);
    expect((await post(t, admin.bearer, `Inventory/Expectations/${closed.expectation}/Cancel`, {})).status).toBe(200);
    for (const op of documented()) {
      const [method, path] = op.split(' ') as ['get' | 'post' | 'put' | 'delete', string];
      // /Item/{item} is the partNo for GET and the shortID for DELETE; a document's {id} names a closed one, so that the empty body changes nothing.
      const id = String(/Allocation/.test(path) ? closed.allocation : closed.expectation);
      const params: Record<string, string> = { item: method === 'get' ? String(f.partNo) : f.gone, wid: '1', id };
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `{${name}}`);
      const req = request(t.http)[method](url).set('Authorization', admin.bearer);
      const res = await (method === 'post' || method === 'put' ? req.send({}) : req);
      expect({ op, notFound: res.status === 404, serverError: res.status >= 500 }).toEqual({ op, notFound: false, serverError: false });
    }
  });

  it('serves no other version and no unversioned copy of the API: /api/v2, /api/v0, /api/Item, /Item… are 404', async () => {
    const paths = ['/api/v2/Item', '/api/v0/Item', '/api/v1.1/Item', '/api/V2/Inventory', '/api/Item', '/Item', '/v1/Item', '/Inventory'];
    for (const path of [...paths, '/api/v2/openapi.json', '/api/docs-json', '/api/v1/openapi.yaml']) {
      const res = await request(t.http).get(path).set('Authorization', admin.bearer);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: notFound('get', path) });
    }
  });
});
