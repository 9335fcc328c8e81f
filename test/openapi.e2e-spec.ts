import request from 'supertest';
import { SecurityId } from '../src/auth/security-id.js';
import { AllocationExpiry } from '../src/inventory/allocation-expiry.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, givenWarehouses, type TestClient } from './support/auth.js';
import { answerComponents, closedAnswers, departures, type Doc } from './support/openapi.js';
import { sequenced } from './support/events.js';
import { freePort } from './support/redis-process.js';

/**
 * The OpenAPI document tells the truth about every answer: each documented
 * operation is called for real, and its answer must match the schema the
 * document gives for that status, field for field and in the same order
 * (an extra, missing, mistyped or reordered field fails). Failures too: every
 * status a request here provokes must be documented for its route, and its
 * `error` code must be one the document names for that status. Every schema
 * an answer can have is closed (each property required, no other allowed),
 * and each is met by a real answer here at least once. A new route without a
 * success schema, a response mapper that drifts from its response class, or
 * a class property without its decorator, fails here.
 */
describe('the OpenAPI document against real answers', () => {
  let t: TestApp;
  let client: TestClient;
  let doc: Doc;
  const checked = new Set<string>();
  /** The components real answers were checked against. */
  const answered = new Set<string>();

  beforeAll(async () => {
    t = await startTestApp();
    await givenWarehouses(t, 1, 2);
    client = await givenClient(t, { warehouses: [1, 2] });
    doc = (await request(t.http).get('/api/v1/openapi.json')).body as Doc;
  });
  afterAll(() => t.close());

  /** Checks an answer of `METHOD /path/{param}` against the document, and records the operation as covered. */
  const expectDocumented = (op: string, res: request.Response) => {
    const [method, path] = op.split(' ');
    const response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(res.status)];
    expect({ op, status: res.status, documented: Boolean(response?.content?.['application/json']) }).toEqual({ op, status: res.status, documented: true });
    expect({ op, departures: departures(res.body, response!.content!['application/json'].schema, doc, '$', answered) }).toEqual({ op, departures: [] });
    if (res.status < 300) checked.add(`${method.toLowerCase()} ${path}`);
  };
  const as = (req: request.Test, who: TestClient = client) => req.set('Authorization', who.bearer);

  it('matches every success answer, operation by operation', async () => {
    const http = t.http;
    expectDocumented('GET /health', await request(http).get('/health'));
    expectDocumented('GET /health/live', await request(http).get('/health/live'));
    expectDocumented('GET /health/ready', await request(http).get('/health/ready'));
    const metrics = await request(http).get('/metrics');
    expect({ status: metrics.status, type: metrics.headers['content-type'], documented: Object.keys(doc.paths['/metrics'].get.responses['200'].content ?? {}) }).toEqual({
      status: 200,
      type: expect.stringMatching(/^text\/plain;/),
      documented: ['text/plain'],
    });
    checked.add('get /metrics');
    expectDocumented(
      'POST /api/v1/Token',
      await request(http).post('/api/v1/Token').type('form').send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    );
    const created = await as(request(http).post('/api/v1/Item')).send({ shortID: 'DOC-1', description: 'Documented' });
    expectDocumented('POST /api/v1/Item', created);
    expectDocumented('PUT /api/v1/Item', await as(request(http).put('/api/v1/Item')).send({ shortID: 'DOC-1', putUp: 'Box of 10' }));
    expectDocumented('GET /api/v1/Item', await as(request(http).get('/api/v1/Item')));
    expectDocumented('GET /api/v1/Item', await as(request(http).get('/api/v1/Item?key=DOC-1')));
    expectDocumented('GET /api/v1/Item', await as(request(http).get('/api/v1/Item?Category=0')));
    expectDocumented('GET /api/v1/Item/All', await as(request(http).get('/api/v1/Item/All')));
    expectDocumented('GET /api/v1/Item/{item}', await as(request(http).get(`/api/v1/Item/${created.body.partNo}`)));

    expectDocumented('POST /api/v1/Inventory/Receive', await as(request(http).post('/api/v1/Inventory/Receive')).send({ itemID: 'DOC-1', units: 10, wid: 1, reasonCode: 1, serial: 'S1' }));
    expectDocumented('POST /api/v1/Inventory/Issue', await as(request(http).post('/api/v1/Inventory/Issue')).send({ itemID: 'DOC-1', units: 2.5, wid: 1, reasonCode: 2 }));
    expectDocumented('POST /api/v1/Inventory/Move', await as(request(http).post('/api/v1/Inventory/Move')).send({ itemID: 'DOC-1', units: 1, wid: 1, shipToWid: 2 }));
    expectDocumented('POST /api/v1/Inventory/Hold', await as(request(http).post('/api/v1/Inventory/Hold')).send({ itemID: 'DOC-1', units: 2, wid: 1, reasonCode: 3 }));
    expectDocumented('POST /api/v1/Inventory/Release', await as(request(http).post('/api/v1/Inventory/Release')).send({ itemID: 'DOC-1', wid: 1, reasonCode: 4 }));
    expectDocumented('POST /api/v1/Inventory/Count', await as(request(http).post('/api/v1/Inventory/Count')).send({ itemID: 'DOC-1', counted: 5, wid: 1, reasonCode: 5 }));
    expectDocumented(
      'POST /api/v1/Inventory/Batch',
      await as(request(http).post('/api/v1/Inventory/Batch')).send({
        operations: [
          { op: 'receive', itemID: 'DOC-1', units: 4, wid: 1, reasonCode: 1 },
          { op: 'issue', itemID: 'DOC-1', units: 1, wid: 1, reasonCode: 2 },
          { op: 'move', itemID: 'DOC-1', units: 1, wid: 1, shipToWid: 2 },
          { op: 'hold', itemID: 'DOC-1', units: 1, wid: 1, reasonCode: 3 },
          { op: 'release', itemID: 'DOC-1', wid: 1, reasonCode: 4 },
          { op: 'count', itemID: 'DOC-1', counted: 5, wid: 1, reasonCode: 5 },
        ],
      }),
    );
    // The stock documents: every route, an Issue against an allocation and a Receive against an expectation (their events name them), an expiry.
    const DAY = 86_400_000;
    const allocate = (units: number, expiresAt?: string) => as(request(http).post('/api/v1/Inventory/Allocate')).send({ itemID: 'DOC-1', units, wid: 1, reference: 'SO-DOC-1', expiresAt });
    const allocated = await allocate(2);
    expectDocumented('POST /api/v1/Inventory/Allocate', allocated);
    const allocationId = allocated.body.allocation.id;
    expectDocumented('POST /api/v1/Inventory/Allocations/{id}/Pack', await as(request(http).post(`/api/v1/Inventory/Allocations/${allocationId}/Pack`)).send({ units: 1 }));
    expectDocumented('POST /api/v1/Inventory/Issue', await as(request(http).post('/api/v1/Inventory/Issue')).send({ itemID: 'DOC-1', units: 1, wid: 1, reasonCode: 2, allocationId }));
    const lapsing = (await allocate(1, new Date(Date.now() + DAY).toISOString())).body.allocation.id;
    expect(await t.app.get(AllocationExpiry).expireDue(new Date(Date.now() + 2 * DAY))).toBe(1);
    const cancelled = await as(request(http).post(`/api/v1/Inventory/Allocations/${(await allocate(1)).body.allocation.id}/Cancel`));
    expectDocumented('POST /api/v1/Inventory/Allocations/{id}/Cancel', cancelled);
    expectDocumented('GET /api/v1/Inventory/Allocations', await as(request(http).get('/api/v1/Inventory/Allocations?itemID=DOC-1')));
    expectDocumented('GET /api/v1/Inventory/Allocations/{wid}', await as(request(http).get('/api/v1/Inventory/Allocations/1?state=open')));
    expectDocumented('GET /api/v1/Inventory/Allocation/{id}', await as(request(http).get(`/api/v1/Inventory/Allocation/${lapsing}`)));
    const expect_ = (units: number) => as(request(http).post('/api/v1/Inventory/Expect')).send({ itemID: 'DOC-1', units, wid: 1, reference: 'PO-DOC-1', due: '2027-01-04T00:00:00Z' });
    const expected = await expect_(5);
    expectDocumented('POST /api/v1/Inventory/Expect', expected);
    const expectationId = expected.body.expectation.id;
    expectDocumented('POST /api/v1/Inventory/Expectations/{id}/Ship', await as(request(http).post(`/api/v1/Inventory/Expectations/${expectationId}/Ship`)));
    expectDocumented('POST /api/v1/Inventory/Receive', await as(request(http).post('/api/v1/Inventory/Receive')).send({ itemID: 'DOC-1', units: 2, wid: 1, reasonCode: 1, expectationId }));
    expectDocumented('POST /api/v1/Inventory/Expectations/{id}/Cancel', await as(request(http).post(`/api/v1/Inventory/Expectations/${(await expect_(1)).body.expectation.id}/Cancel`)));
    expectDocumented('GET /api/v1/Inventory/Expectations', await as(request(http).get('/api/v1/Inventory/Expectations?reference=PO-DOC-1')));
    expectDocumented('GET /api/v1/Inventory/Expectations/{wid}', await as(request(http).get('/api/v1/Inventory/Expectations/1')));
    expectDocumented('GET /api/v1/Inventory/Expectation/{id}', await as(request(http).get(`/api/v1/Inventory/Expectation/${expectationId}`)));
    expectDocumented('GET /api/v1/Inventory', await as(request(http).get('/api/v1/Inventory')));
    expectDocumented('GET /api/v1/Inventory/{wid}', await as(request(http).get('/api/v1/Inventory/2')));
    expectDocumented('GET /api/v1/Inventory/StockLevels', await as(request(http).get('/api/v1/Inventory/StockLevels')));
    expectDocumented('GET /api/v1/Inventory/StockLevels/{wid}', await as(request(http).get('/api/v1/Inventory/StockLevels/1')));
    expectDocumented('GET /api/v1/Inventory/Transactions', await as(request(http).get('/api/v1/Inventory/Transactions')));
    expectDocumented('DELETE /api/v1/Item/{item}', await as(request(http).delete('/api/v1/Item/DOC-1')));
    // Every type of event, from the changes above.
    await sequenced(t);
    const events = await as(request(http).get('/api/v1/Events?limit=1000'));
    expect(new Set(events.body.value.map((e: { type: string }) => e.type)).size).toBe(16);
    expectDocumented('GET /api/v1/Events', events);

    // Every documented operation was called and matched.
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)).sort();
    expect([...checked].sort()).toEqual(documented);
  });

  it('documents every failure a route answers, with the error codes it carries: 400, 401, 403, 404, 409, 413, 422', async () => {
    const http = t.http;
    const readOnly = await givenClient(t, { warehouses: [1], readOnly: true });
    const reader = await givenClient(t, { warehouses: [1], permissions: [SecurityId.ItemMasterList] });
    await as(request(http).post('/api/v1/Item')).send({ shortID: 'DOC-2' }).expect(201);
    await as(request(http).post('/api/v1/Item')).send({ shortID: 'DOC-OLD' }).expect(201);
    await as(request(http).delete('/api/v1/Item/DOC-OLD')).expect(200);
    const fail = async (op: string, res: request.Response, status: number, error?: string) => {
      expect({ op, status: res.status, error: res.body.error }).toEqual({ op, status, error: error ?? res.body.error });
      expectDocumented(op, res);
    };

    // 400: unreadable, invalid body, invalid query, invalid Idempotency-Key; OAuth's own codes on /Token.
    await fail('GET /health', await request(http).get('/health').set('Content-Type', 'application/json').send('{"broken'), 400, 'bad_request');
    await fail('POST /api/v1/Item', await as(request(http).post('/api/v1/Item')).send({}), 400, 'validation_error');
    await fail('POST /api/v1/Item', await as(request(http).post('/api/v1/Item')).set('Content-Type', 'application/json').send('{"broken'), 400, 'bad_request');
    await fail('GET /api/v1/Item/All', await as(request(http).get('/api/v1/Item/All?page=0')), 400, 'validation_error');
    await fail('GET /api/v1/Inventory/{wid}', await as(request(http).get('/api/v1/Inventory/1?pageSize=x')), 400, 'validation_error');
    await fail('GET /api/v1/Events', await as(request(http).get('/api/v1/Events?types=stock.sold')), 400, 'validation_error');
    const receive = { itemID: 'DOC-2', units: 1, wid: 1, reasonCode: 1 };
    await fail('POST /api/v1/Inventory/Receive', await as(request(http).post('/api/v1/Inventory/Receive')).set('Idempotency-Key', ' ').send(receive), 400, 'validation_error');
    await fail('POST /api/v1/Token', await request(http).post('/api/v1/Token').type('form').send({ grant_type: 'password' }), 400, 'unsupported_grant_type');
    await fail('POST /api/v1/Token', await request(http).post('/api/v1/Token').type('form').send({ client_id: 'x' }), 400, 'invalid_request');

    // 401: no token, a bad token, bad client credentials.
    await fail('GET /api/v1/Inventory', await request(http).get('/api/v1/Inventory'), 401, 'unauthorized');
    await fail('DELETE /api/v1/Item/{item}', await request(http).delete('/api/v1/Item/DOC-2').set('Authorization', 'Bearer nope'), 401, 'unauthorized');
    await fail('POST /api/v1/Token', await request(http).post('/api/v1/Token').type('form').send({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' }), 401, 'invalid_client');

    // 403: read-only, missing SecurityID, warehouse scope (body and path).
    await fail('POST /api/v1/Item', await as(request(http).post('/api/v1/Item'), readOnly).send({ shortID: 'DOC-RO' }), 403, 'forbidden');
    await fail('POST /api/v1/Inventory/Issue', await as(request(http).post('/api/v1/Inventory/Issue'), reader).send({ ...receive, reasonCode: 2 }), 403, 'forbidden');
    await fail('POST /api/v1/Inventory/Receive', await as(request(http).post('/api/v1/Inventory/Receive')).send({ ...receive, wid: 3 }), 403, 'forbidden');
    await fail('POST /api/v1/Inventory/Move', await as(request(http).post('/api/v1/Inventory/Move')).send({ ...receive, shipToWid: 3 }), 403, 'forbidden');
    await fail('GET /api/v1/Inventory/StockLevels/{wid}', await as(request(http).get('/api/v1/Inventory/StockLevels/3')), 403, 'forbidden');

    // 404: unknown item by partNo, key, shortID; a wid that is no warehouse number.
    await fail('GET /api/v1/Item/{item}', await as(request(http).get('/api/v1/Item/999999')), 404, 'not_found');
    await fail('GET /api/v1/Item', await as(request(http).get('/api/v1/Item?key=NOPE')), 404, 'not_found');
    await fail('PUT /api/v1/Item', await as(request(http).put('/api/v1/Item')).send({ shortID: 'NOPE' }), 404, 'not_found');
    await fail('DELETE /api/v1/Item/{item}', await as(request(http).delete('/api/v1/Item/NOPE')), 404, 'not_found');
    await fail('GET /api/v1/Inventory/{wid}', await as(request(http).get('/api/v1/Inventory/0')), 404, 'not_found');
    await fail('POST /api/v1/Inventory/Allocations/{id}/Pack', await as(request(http).post('/api/v1/Inventory/Allocations/999999/Pack')).send({ units: 1 }), 404, 'not_found');
    await fail('GET /api/v1/Inventory/Expectation/{id}', await as(request(http).get('/api/v1/Inventory/Expectation/abc')), 404, 'not_found');
    await fail('POST /api/v1/Inventory/Allocate', await as(request(http).post('/api/v1/Inventory/Allocate')).send({ itemID: 'DOC-2', units: 1, wid: 3, reference: 'SO-1' }), 403, 'forbidden');

    // 409: a duplicate item, not enough stock, a discontinued item received.
    await fail('POST /api/v1/Item', await as(request(http).post('/api/v1/Item')).send({ shortID: 'doc-2' }), 409, 'conflict');
    await fail('POST /api/v1/Inventory/Issue', await as(request(http).post('/api/v1/Inventory/Issue')).send({ ...receive, units: 5, reasonCode: 2 }), 409, 'conflict');
    await fail('POST /api/v1/Inventory/Move', await as(request(http).post('/api/v1/Inventory/Move')).send({ ...receive, units: 5, shipToWid: 2 }), 409, 'conflict');
    await fail('POST /api/v1/Inventory/Receive', await as(request(http).post('/api/v1/Inventory/Receive')).send({ ...receive, itemID: 'DOC-OLD' }), 409, 'conflict');
    await fail('POST /api/v1/Inventory/Batch', await as(request(http).post('/api/v1/Inventory/Batch')).send({ operations: [{ op: 'issue', ...receive, units: 999, reasonCode: 2 }] }), 409, 'conflict');
    await fail('POST /api/v1/Inventory/Count', await as(request(http).post('/api/v1/Inventory/Count')).send({ ...receive, counted: 1, expected: 999, reasonCode: 5 }), 409, 'conflict');
    await fail('POST /api/v1/Inventory/Release', await as(request(http).post('/api/v1/Inventory/Release')).send({ ...receive, units: 5, reasonCode: 4 }), 409, 'conflict');
    await fail('POST /api/v1/Inventory/Allocate', await as(request(http).post('/api/v1/Inventory/Allocate')).send({ itemID: 'DOC-2', units: 999, wid: 1, reference: 'SO-2' }), 409, 'conflict');
    const gone = (await as(request(http).post('/api/v1/Inventory/Expect')).send({ itemID: 'DOC-2', units: 1, wid: 1, reference: 'PO-2' }).expect(201)).body.expectation.id;
    await as(request(http).post(`/api/v1/Inventory/Expectations/${gone}/Cancel`)).expect(200);
    const closed = await as(request(http).post(`/api/v1/Inventory/Expectations/${gone}/Cancel`));
    await fail('POST /api/v1/Inventory/Expectations/{id}/Cancel', closed, 409, 'conflict');
    expect(closed.body.details).toEqual({ reason: 'expectation_closed', expectationId: gone, state: 'cancelled' });

    // 413: a body over 1 MiB. 422: an Idempotency-Key reused with another body.
    await fail('PUT /api/v1/Item', await as(request(http).put('/api/v1/Item')).send({ shortID: 'DOC-2', remark: 'x'.repeat(1_100_000) }), 413, 'payload_too_large');
    await as(request(http).post('/api/v1/Inventory/Receive')).set('Idempotency-Key', 'doc-k1').send(receive).expect(201);
    await fail('POST /api/v1/Inventory/Receive', await as(request(http).post('/api/v1/Inventory/Receive')).set('Idempotency-Key', 'doc-k1').send({ ...receive, units: 2 }), 422, 'idempotency_key_reused');
  });

  it('documents 429 with the RateLimited body on the metered routes, and not on /health', async () => {
    const limited = await startTestApp({ config: { rateLimitPerMinute: 2 } });
    try {
      const token = () => request(limited.http).post('/api/v1/Token').type('form').send({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' });
      await token();
      await token();
      const over = await token();
      expect(over.status).toBe(429);
      expectDocumented('POST /api/v1/Token', over);
      const stock = await request(limited.http).get('/api/v1/Inventory/StockLevels');
      expect(stock.status).toBe(429);
      expectDocumented('GET /api/v1/Inventory/StockLevels', stock);
      expect((await request(limited.http).get('/health')).status).toBe(200);
      expect(Object.keys(doc.paths['/health'].get.responses)).not.toContain('429');
    } finally {
      await limited.close();
    }
  });

  it('matches /health with REDIS_URL set: the variant that reports Redis', async () => {
    // A port nobody listens on: the instance serves on and reports redis "down" (DECISIONS "Rate limit").
    const withRedis = await startTestApp({ config: { redisUrl: `redis://127.0.0.1:${await freePort()}` } });
    try {
      const health = await request(withRedis.http).get('/health');
      expect(health.body).toEqual({ status: 'ok', database: 'up', redis: 'down' });
      expectDocumented('GET /health', health);
    } finally {
      await withRedis.close();
    }
  });

  (testDatabaseKind() === 'mysql' ? it : it.skip)('matches /health with DATABASE_READ_URL set: the variants that report the replica (MySQL/MariaDB only)', async () => {
    // Ports nobody listens on: the instance serves on, lists from the primary, and reports both "down".
    const replica = new URL(process.env.TEST_MYSQL_URL!);
    replica.port = String(await freePort());
    for (const redisUrl of [null, `redis://127.0.0.1:${await freePort()}`]) {
      const withReplica = await startTestApp({ config: { databaseReadUrl: replica.toString(), redisUrl } });
      try {
        const health = await request(withReplica.http).get('/health');
        expect(health.body).toEqual({ status: 'ok', database: 'up', ...(redisUrl ? { redis: 'down' } : {}), replica: 'down' });
        expectDocumented('GET /health', health);
      } finally {
        await withReplica.close();
      }
    }
  });

  it('pins every answer down: a success schema per operation, every response schema closed, every other component a request body', () => {
    expect(closedAnswers(doc)).toEqual([]);
  });

  // After the tests above, which make the real answers.
  it('met every schema an answer can have with a real answer', () => {
    // SQLite takes no DATABASE_READ_URL: its answers never report a replica.
    const unreachable = testDatabaseKind() === 'sqlite' ? ['HealthWithRedisAndReplica', 'HealthWithReplica'] : [];
    expect(answerComponents(doc).filter((name) => !answered.has(name)).sort()).toEqual(unreachable);
  });

  it('documents, per operation, the statuses it can answer', () => {
    const reads = ['200', '400', '401', '403', '429', '503', 'default'];
    const writes = ['400', '401', '403', '409', '413', '422', '429', '503', 'default'];
    const statuses = Object.fromEntries(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => [`${m.toUpperCase()} ${path}`, Object.keys(op.responses).sort()])),
    );
    expect(statuses).toEqual({
      'GET /health': ['200', '400', '503', 'default'],
      'GET /health/live': ['200', '400', 'default'],
      'GET /health/ready': ['200', '400', '503', 'default'],
      'GET /metrics': ['200', '400', 'default'],
      'POST /api/v1/Token': ['200', '400', '401', '413', '429', '503', 'default'],
      'GET /api/v1/Item': [...reads, '404'].sort(),
      'POST /api/v1/Item': ['201', ...writes].sort(),
      'PUT /api/v1/Item': ['200', '400', '401', '403', '404', '413', '429', '503', 'default'],
      'GET /api/v1/Item/All': reads,
      'GET /api/v1/Item/{item}': [...reads, '404'].sort(),
      'DELETE /api/v1/Item/{item}': [...reads, '404'].sort(),
      'GET /api/v1/Inventory': reads,
      'GET /api/v1/Inventory/{wid}': [...reads, '404'].sort(),
      'GET /api/v1/Inventory/StockLevels': reads,
      'GET /api/v1/Inventory/StockLevels/{wid}': [...reads, '404'].sort(),
      'GET /api/v1/Inventory/Transactions': reads,
      'POST /api/v1/Inventory/Receive': ['201', ...writes].sort(),
      'POST /api/v1/Inventory/Move': ['200', ...writes].sort(),
      'POST /api/v1/Inventory/Issue': ['200', ...writes].sort(),
      'POST /api/v1/Inventory/Hold': ['200', ...writes].sort(),
      'POST /api/v1/Inventory/Release': ['200', ...writes].sort(),
      'POST /api/v1/Inventory/Count': ['200', ...writes].sort(),
      'POST /api/v1/Inventory/Batch': ['200', ...writes].sort(),
      'POST /api/v1/Inventory/Allocate': ['201', ...writes].sort(),
      'POST /api/v1/Inventory/Allocations/{id}/Pack': ['200', ...writes, '404'].sort(),
      'POST /api/v1/Inventory/Allocations/{id}/Cancel': ['200', ...writes.filter((s) => s !== '413'), '404'].sort(),
      'GET /api/v1/Inventory/Allocations': reads,
      'GET /api/v1/Inventory/Allocations/{wid}': [...reads, '404'].sort(),
      'GET /api/v1/Inventory/Allocation/{id}': [...reads, '404'].sort(),
      'POST /api/v1/Inventory/Expect': ['201', ...writes].sort(),
      'POST /api/v1/Inventory/Expectations/{id}/Ship': ['200', ...writes.filter((s) => s !== '413'), '404'].sort(),
      'POST /api/v1/Inventory/Expectations/{id}/Cancel': ['200', ...writes.filter((s) => s !== '413'), '404'].sort(),
      'GET /api/v1/Inventory/Expectations': reads,
      'GET /api/v1/Inventory/Expectations/{wid}': [...reads, '404'].sort(),
      'GET /api/v1/Inventory/Expectation/{id}': [...reads, '404'].sort(),
      'GET /api/v1/Events': reads,
    });
  });

  it('types every path and paging parameter, and declares where the service is', () => {
    const full = doc as Doc & { servers?: Array<{ url: string }>; paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; schema: { type: string } }> }>> };
    expect(full.servers?.map((s) => s.url)).toEqual(['/']);
    const types = (path: string, method: string) => Object.fromEntries((full.paths[path][method].parameters ?? []).filter((p) => p.in !== 'header').map((p) => [p.name, p.schema.type]));
    expect(types('/api/v1/Item/{item}', 'get')).toEqual({ item: 'integer' });
    expect(types('/api/v1/Item/{item}', 'delete')).toEqual({ item: 'string' });
    expect(types('/api/v1/Inventory/{wid}', 'get')).toMatchObject({ wid: 'integer', page: 'integer', pageSize: 'integer' });
    expect(types('/api/v1/Inventory/StockLevels/{wid}', 'get')).toMatchObject({ wid: 'integer', page: 'integer' });
    expect(types('/api/v1/Item', 'get')).toMatchObject({ page: 'integer', Category: 'integer' });
    expect(types('/api/v1/Events', 'get')).toEqual({ after: 'integer', limit: 'integer', types: 'string' });
    expect(types('/api/v1/Inventory/Allocation/{id}', 'get')).toEqual({ id: 'integer' });
    expect(types('/api/v1/Inventory/Expectations/{id}/Ship', 'post')).toEqual({ id: 'integer' });
    expect(types('/api/v1/Inventory/Allocations/{wid}', 'get')).toMatchObject({ wid: 'integer', page: 'integer', state: 'string' });
  });

  it('reports a departure when a field is missing, extra, mistyped or out of order, or an error code is not documented (the check itself can fail)', () => {
    const item = { $ref: '#/components/schemas/StockLevel' };
    const good = { partNo: 1, shortID: 'A', available: 1, inStock: 1, onOrder: 0, onHold: 0, committed: 0, packed: 0, aSN: 0 };
    expect(departures(good, item, doc)).toEqual([]);
    const { aSN: _, ...short } = good;
    expect(departures(short, item, doc)).not.toEqual([]);
    expect(departures({ ...good, extra: 1 }, item, doc)).not.toEqual([]);
    expect(departures({ ...good, partNo: '1' }, item, doc)).not.toEqual([]);
    const { partNo, ...rest } = good;
    expect(departures({ ...rest, partNo }, item, doc)).not.toEqual([]);
    const notFound = doc.paths['/api/v1/Item/{item}'].get.responses['404'].content!['application/json'].schema;
    const error = { statusCode: 404, error: 'not_found', message: 'No item.', details: null };
    expect(departures(error, notFound, doc)).toEqual([]);
    expect(departures({ ...error, error: 'conflict' }, notFound, doc)).not.toEqual([]);
    expect(departures({ ...error, statusCode: 409 }, notFound, doc)).not.toEqual([]);
    // A 409's details: a known reason, only documented figures, in order; null or an unknown reason departs.
    const conflict = doc.paths['/api/v1/Inventory/Issue'].post.responses['409'].content!['application/json'].schema;
    const stock = { statusCode: 409, error: 'conflict', message: 'Insufficient stock.', details: { reason: 'insufficient_stock', itemID: 'A', wid: 1, requested: 2, available: 1 } };
    expect(departures(stock, conflict, doc)).toEqual([]);
    expect(departures({ ...stock, details: { ...stock.details, requested: null } }, conflict, doc)).toEqual([]);
    expect(departures({ ...stock, details: null }, conflict, doc)).not.toEqual([]);
    expect(departures({ ...stock, details: { ...stock.details, reason: 'out_of_stock' } }, conflict, doc)).not.toEqual([]);
    expect(departures({ ...stock, details: { ...stock.details, extra: 1 } }, conflict, doc)).not.toEqual([]);
    const { reason, itemID, ...figures } = stock.details;
    expect(departures({ ...stock, details: { reason, ...figures, itemID } }, conflict, doc)).not.toEqual([]);
    expect(departures({ ...stock, details: { itemID, ...figures } }, conflict, doc)).not.toEqual([]);
  });

  it('reports an answer schema that is not closed, a route without a success schema, and a stray component (the check itself can fail)', () => {
    const before = new Set(closedAnswers(doc));
    /** The problems a change to a copy of the document adds. */
    const drifted = (change: (copy: Doc) => void) => {
      const copy = structuredClone(doc);
      change(copy);
      return closedAnswers(copy).filter((problem) => !before.has(problem));
    };
    const schemas = (copy: Doc) => copy.components.schemas;
    // A property a class declares with `required: false`, or one added without being required.
    const lot = Object.keys(schemas(doc).Lot.properties!);
    expect(drifted((c) => schemas(c).Lot.required!.pop())).toEqual([`#/components/schemas/Lot: required ${JSON.stringify(lot.slice(0, -1))}, properties ${JSON.stringify(lot)}`]);
    expect(drifted((c) => (schemas(c).StockLevel.properties!.extra = { type: 'integer' }))).toHaveLength(1);
    // ConflictDetails may leave out its figures, never its reason.
    expect(drifted((c) => (schemas(c).ConflictDetails.required = []))).toHaveLength(1);
    // A schema that lets other fields through.
    expect(drifted((c) => delete schemas(c).IssuedLot.additionalProperties)).toEqual(['#/components/schemas/IssuedLot: additionalProperties is not false']);
    // A field with no type, a route whose success answer has no schema, a component nothing uses.
    expect(drifted((c) => (schemas(c).Token.properties!.expires_in = {}))).toEqual(['#/components/schemas/Token.expires_in: schema without a type']);
    expect(drifted((c) => delete c.paths['/api/v1/Item/All'].get.responses['200'].content)).toContain('GET /api/v1/Item/All 200: no JSON schema');
    expect(drifted((c) => delete c.paths['/api/v1/Item/All'].get.responses['200'])).toContain('GET /api/v1/Item/All: no success response');
    expect(drifted((c) => (schemas(c).Stray = { type: 'object', properties: {} }))).toEqual(['#/components/schemas/Stray: neither an answer nor a request body']);
    // An error response narrowing a field Error does not have.
    const notFound = (c: Doc) => c.paths['/api/v1/Item/{item}'].get.responses['404'].content!['application/json'].schema;
    expect(drifted((c) => (notFound(c).allOf![1].properties!.code = { type: 'string' }))).toEqual([
      'GET /api/v1/Item/{item} 404.allOf[1]: code narrows no property of #/components/schemas/Error',
    ]);
  });
});
