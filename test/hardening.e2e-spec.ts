import { connect } from 'node:net';
import { createTestDatabase, startTestApp, testDatabaseKind, type TestDatabase } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { startService, type ServiceProcess } from './support/service-process.js';

/**
 * Requests that once broke the service, each found by the fuzz run
 * (`npm run test:hostile`), sent to the built service in a process of its
 * own: some of them only misbehaved outside Jest's module sandbox.
 */
describe(`requests found by fuzzing, against the service process on ${testDatabaseKind()}`, () => {
  let db: TestDatabase;
  let client: TestClient;
  let service: ServiceProcess;
  let url: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const t = await startTestApp({ database: db });
    client = await givenClient(t);
    await t.close();
    service = await startService({ DATABASE_URL: db.url });
    url = service.url;
  });
  afterAll(async () => {
    await service?.kill('SIGTERM');
    await db?.drop();
  });

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method,
      headers: { Authorization: client.bearer, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('keeps working after a query with __proto__, constructor and prototype parameters', async () => {
    for (const q of ['__proto__=978370656', 'constructor=1&prototype=2', '__proto__=1&__proto__=2', 'pageSize[]=1&__proto__=x']) {
      const res = await call('GET', `/api/v1/Item?${q}`);
      expect(res.status).toBeLessThan(500);
    }
    // Before the fix the first of those broke every later request with a body.
    const created = await call('POST', '/api/v1/Item', { shortID: 'PROTO-1', description: 'after' });
    expect(created.status).toBe(201);
    const nested = await call('POST', '/api/v1/Item', { shortID: { a: 1 }, units: { b: 2 } });
    expect(nested.status).toBe(400);
    expect(await nested.json()).toMatchObject({ error: 'validation_error', details: { shortID: ['shortID must be a string'] } });
  });

  it('ignores __proto__ and constructor keys in a JSON body at any depth', async () => {
    const res = await call('POST', '/api/v1/Item', '{"shortID":"PROTO-2","__proto__":{"discontinued":true},"constructor":{"prototype":{"x":1}}}');
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ shortID: 'PROTO-2', discontinued: false });
  });

  it('treats a null field as not sent: the default on create, unchanged on update', async () => {
    const created = await call('POST', '/api/v1/Item', { shortID: 'NULLS-1', units: null, description: null, uOM: 'KG' });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ shortID: 'NULLS-1', units: 1, description: '', uOM: 'KG' });
    const updated = await call('PUT', '/api/v1/Item', { shortID: 'NULLS-1', uOM: null, description: 'set' });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ uOM: 'KG', description: 'set' });
    const missing = await call('POST', '/api/v1/Item', { shortID: null });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'validation_error', details: { shortID: ['shortID is required'] } });
  });

  it('answers a body nested thousands of levels deep with 400 bad_request', async () => {
    const res = await call('POST', '/api/v1/Item', `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ statusCode: 400, error: 'bad_request', message: 'Request body is nested deeper than 32 levels.', details: null });
  });

  it('answers headers over 16 KiB with 431 in the error shape, and goes on serving', async () => {
    const res = await call('GET', `/api/v1/Item?x=${'y'.repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-api-version')).toBe('v1');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({
      statusCode: 431,
      error: 'request_header_fields_too_large',
      message: 'Request line and headers are larger than 16 KiB.',
      details: null,
    });
    expect((await call('GET', '/api/v1/Item')).status).toBe(200);
  });

  it("answers a request Node's HTTP parser cannot read with 400 in the error shape", async () => {
    const { port } = new URL(url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end('GET /api/v1/Item HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head, body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(head).toMatch(/\r\nX-API-Version: v1\r\n/);
    expect(JSON.parse(body)).toEqual({ statusCode: 400, error: 'bad_request', message: 'Malformed HTTP request.', details: null });
  });

  it('keeps the Link header short when the query is long', async () => {
    const res = await call('GET', `/api/v1/Item?pageSize=1&junk=${'j'.repeat(8_000)}&sort=${'s'.repeat(500)}`);
    expect(res.status).toBe(200);
    const pages = Number(res.headers.get('x-total-count'));
    expect(pages).toBeGreaterThan(1);
    // Neither the junk nor the over-long sort is echoed; next carries its cursor (base64url and its MAC).
    expect(res.headers.get('link')).toMatch(
      new RegExp(
        `^</api/v1/Item\\?page=1&pageSize=1>; rel="first", </api/v1/Item\\?page=2&pageSize=1&cursor=[A-Za-z0-9_-]{1,400}\\.[A-Za-z0-9_-]{22}>; rel="next", </api/v1/Item\\?page=${pages}&pageSize=1>; rel="last"$`,
      ),
    );
  });

  it('quotes at most 64 characters of a long shortID in a 404', async () => {
    const res = await call('DELETE', `/api/v1/Item/${'L'.repeat(5_000)}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ statusCode: 404, error: 'not_found', message: `No item with shortID "${'L'.repeat(64)}…".`, details: null });
  });

  it('logged no error while answering all of that', () => {
    expect(service.output()).not.toMatch(/"level":(50|60)/);
  });
});

