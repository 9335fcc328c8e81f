import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { ServiceExpressAdapter } from '../src/http/express-adapter.js';
import { startTestApp, type TestApp } from './app.factory.js';
import { ProbeModule } from './support/probe.module.js';

describe('every response and every failure (DECISIONS "General", "Errors")', () => {
  let t: TestApp;
  const logLines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    t = await startTestApp({ imports: [ProbeModule], logger: pino({ level: 'info' }, sink) });
  });
  afterAll(() => t.close());

  const expectCommonHeaders = (res: request.Response) => {
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-api-version']).toBe('v1');
  };

  it("is served by ServiceExpressAdapter: a server with the service's connection times (http/express-adapter.ts)", async () => {
    expect(t.app.getHttpAdapter()).toBeInstanceOf(ServiceExpressAdapter);
    expect((t.app.getHttpServer() as { requestTimeout: number }).requestTimeout).toBe(30_000);
    const res = await request(t.http).get('/health');
    expect(res.status).toBe(200);
  });

  it('answers a path outside the API prefix with the same 404 not_found, any method', async () => {
    for (const [method, path] of [['get', '/admin'], ['post', '/admin/clients'], ['delete', '/Item/1'], ['get', '/api/v2/Item']] as const) {
      const res = await request(t.http)[method](path).send({});
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: { statusCode: 404, error: 'not_found', message: `No route for ${method.toUpperCase()} ${path}.`, details: null },
      });
      expectCommonHeaders(res);
    }
  });

  it('answers an unknown route with 404 not_found', async () => {
    const res = await request(t.http).get('/api/v1/NoSuchThing?x=1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, error: 'not_found', message: 'No route for GET /api/v1/NoSuchThing.', details: null });
    expectCommonHeaders(res);
  });

  it('answers an unknown method on a known path with 404 not_found', async () => {
    const res = await request(t.http).delete('/health');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, error: 'not_found', message: 'No route for DELETE /health.', details: null });
    expectCommonHeaders(res);
  });

  it('answers malformed JSON with 400 bad_request', async () => {
    const res = await request(t.http).post('/api/v1/__probe/echo').set('Content-Type', 'application/json').send('{"name": "x",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'bad_request', message: 'Malformed JSON in request body.', details: null });
    expectCommonHeaders(res);
  });

  it('answers a JSON body that is not an object with 400 bad_request', async () => {
    const res = await request(t.http).post('/api/v1/__probe/echo').send([{ name: 'x', count: 1 }]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'bad_request', message: 'Request body must be a JSON object.', details: null });
  });

  it('answers a 2 MiB body with 413 payload_too_large, on any route', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
    for (const path of ['/api/v1/__probe/echo', '/api/v1/NoSuchThing']) {
      const res = await request(t.http).post(path).set('Content-Type', 'application/json').send(big);
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ statusCode: 413, error: 'payload_too_large', message: 'Request body is larger than 1 MiB.', details: null });
      expectCommonHeaders(res);
    }
  });

  it('accepts a body just under 1 MiB', async () => {
    const name = 'x'.repeat(1024 * 1024 - 100);
    const res = await request(t.http).post('/api/v1/__probe/echo').send({ name, count: 1 });
    expect(res.status).toBe(201);
    expect(res.body.name).toHaveLength(name.length);
  });

  it('answers an unexpected error with a generic 500 and logs the stack with the request id', async () => {
    const res = await request(t.http).get('/api/v1/__probe/fail').set('X-Request-Id', 'trace-500-abc');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, error: 'internal_error', message: 'An unexpected error occurred.', details: null });
    expect(res.text).not.toContain('secret internal detail');
    expect(res.text).not.toContain('.ts:');
    expect(res.headers['x-request-id']).toBe('trace-500-abc');
    const logged = logLines.find((l) => l.msg === 'unexpected error' && l.reqId === 'trace-500-abc');
    expect(logged).toBeDefined();
    expect(JSON.stringify(logged)).toContain('secret internal detail');
    expect(JSON.stringify(logged)).toContain('stack');
  });

  it('reports failed validation as validation_error with field → messages', async () => {
    const res = await request(t.http).post('/api/v1/__probe/echo').send({ count: 0, extra: 'ignored' });
    expect(res.status).toBe(400);
    expect(res.body.statusCode).toBe(400);
    expect(res.body.error).toBe('validation_error');
    expect(res.body.message).toBe('Model validation failed.');
    expect(Object.keys(res.body.details).sort()).toEqual(['count', 'name']);
    expect(res.body.details.name).toEqual(['name must be a string']);
    expect(res.body.details.count).toEqual(['count must not be less than 1']);
  });

  it('strips unknown body fields', async () => {
    const res = await request(t.http).post('/api/v1/__probe/echo').send({ name: 'a', count: 2, partNo: 9 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'a', count: 2 });
  });

  it('echoes a safe X-Request-Id and replaces an unsafe one', async () => {
    const echoed = await request(t.http).get('/health').set('X-Request-Id', 'erp-42.sync:7');
    expect(echoed.headers['x-request-id']).toBe('erp-42.sync:7');
    const unsafe = await request(t.http).get('/health').set('X-Request-Id', 'bad id\twith spaces');
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes one log line per request with method, route, status, duration and request id', async () => {
    await request(t.http).get('/health').set('X-Request-Id', 'log-line-1');
    const line = logLines.find((l) => l.msg === 'request' && l.reqId === 'log-line-1');
    expect(line).toMatchObject({ method: 'GET', route: '/health', status: 200 });
    expect(typeof line?.durationMs).toBe('number');
  });

  it('treats paths and query-parameter names case-insensitively', async () => {
    const res = await request(t.http).get('/API/V1/__PROBE/page?PAGE=2&pagesize=5');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 2, pageSize: 5, totalCount: 60, pageCount: 12, hasMore: true });
    expect(res.body.value.map((r: { n: number }) => r.n)).toEqual([6, 7, 8, 9, 10]);
  });

  it('serves the page envelope with X-Total-Count, X-Page-Size, X-Page and Link', async () => {
    const res = await request(t.http).get('/api/v1/__probe/page?page=3&pageSize=10&sort=name');
    expect(res.status).toBe(200);
    expect(res.headers['x-total-count']).toBe('60');
    expect(res.headers['x-page-size']).toBe('10');
    expect(res.headers['x-page']).toBe('3');
    expect(res.headers['x-api-version']).toBe('v1');
    expect(res.headers.link).toBe(
      [
        '</api/v1/__probe/page?sort=name&page=1&pageSize=10>; rel="first"',
        '</api/v1/__probe/page?sort=name&page=2&pageSize=10>; rel="prev"',
        '</api/v1/__probe/page?sort=name&page=4&pageSize=10>; rel="next"',
        '</api/v1/__probe/page?sort=name&page=6&pageSize=10>; rel="last"',
      ].join(', '),
    );
  });

  it('caps pageSize and reports the cap', async () => {
    const res = await request(t.http).get('/api/v1/__probe/page?pageSize=100000');
    expect(res.body.pageSize).toBe(250);
    expect(res.headers['x-page-size']).toBe('250');
    expect(res.body.value).toHaveLength(60);
  });

  it('rejects a page or pageSize that is not a positive whole number', async () => {
    for (const qs of ['page=0', 'page=-1', 'page=abc', 'pageSize=0', 'pageSize=2.5', 'page=1&page=2']) {
      const res = await request(t.http).get(`/api/v1/__probe/page?${qs}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_error');
      expect(Object.keys(res.body.details)).toEqual([qs.startsWith('page=') ? 'page' : 'pageSize']);
    }
  });

  it('rejects an unparsable modifiedSince', async () => {
    const res = await request(t.http).get('/api/v1/__probe/page?modifiedSince=yesterday');
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual({ modifiedSince: ['modifiedSince must be an ISO 8601 datetime'] });
  });

  it('answers a page past the end with an empty value and hasMore false', async () => {
    const res = await request(t.http).get('/api/v1/__probe/page?page=99&pageSize=25');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ value: [], totalCount: 60, page: 99, pageSize: 25, pageCount: 3, hasMore: false });
  });

  it('serves GET /health with 200 when the database answers', async () => {
    const res = await request(t.http).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: 'up' });
    expectCommonHeaders(res);
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const doc = await request(t.http).get('/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toContain('/health');
    expectCommonHeaders(doc);
    const page = await request(t.http).get('/api/docs/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui');
  });
});
