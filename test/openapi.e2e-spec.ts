import request from 'supertest';
import { startTestApp, type TestApp } from './app.factory.js';
import { givenClient, givenWarehouses, type TestClient } from './support/auth.js';

/**
 * The OpenAPI document tells the truth about every answer: each documented
 * operation is called for real, and its answer must match the schema the
 * document gives for that status, field for field and in the same order
 * (an extra, missing, mistyped or reordered field fails). Failures are checked
 * against the Error schema too. A new route without a success schema, or a
 * response mapping that drifts from it, fails here.
 */
type Schema = {
  $ref?: string;
  oneOf?: Schema[];
  type?: string;
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
};
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>; components: { schemas: Record<string, Schema> } };

/** Where `value` departs from `schema` (empty: it conforms). Supports what the document uses. */
function departures(value: unknown, schema: Schema, doc: Doc, at = '$'): string[] {
  if (schema.$ref) return departures(value, doc.components.schemas[schema.$ref.split('/').pop()!], doc, at);
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((s) => departures(value, s, doc, at).length === 0).length;
    return matching === 1 ? [] : [`${at}: matches ${matching} of the oneOf schemas`];
  }
  if (value === null) return schema.nullable ? [] : [`${at}: null`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`];
  switch (schema.type) {
    case 'integer':
      return Number.isInteger(value) ? [] : [`${at}: ${JSON.stringify(value)} is not an integer`];
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : [`${at}: ${JSON.stringify(value)} is not a number`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at}: ${JSON.stringify(value)} is not a boolean`];
    case 'string':
      if (typeof value !== 'string') return [`${at}: ${JSON.stringify(value)} is not a string`];
      return schema.format === 'date-time' && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value) ? [`${at}: ${value} is not an ISO UTC datetime`] : [];
    case 'array':
      return Array.isArray(value) ? value.flatMap((v, i) => departures(v, schema.items!, doc, `${at}[${i}]`)) : [`${at}: not an array`];
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object`];
      const keys = Object.keys(value as object);
      if (schema.properties) {
        const expected = Object.keys(schema.properties);
        if (schema.additionalProperties === false && keys.join() !== expected.join()) return [`${at}: fields ${keys.join(',')}, documented ${expected.join(',')}`];
        return expected.flatMap((k) => (k in (value as object) ? departures((value as Record<string, unknown>)[k], schema.properties![k], doc, `${at}.${k}`) : [`${at}.${k}: missing`]));
      }
      const each = schema.additionalProperties;
      return typeof each === 'object' ? keys.flatMap((k) => departures((value as Record<string, unknown>)[k], each, doc, `${at}.${k}`)) : [];
    }
    default:
      return [`${at}: schema without a type`];
  }
}

describe('the OpenAPI document against real answers', () => {
  let t: TestApp;
  let client: TestClient;
  let doc: Doc;
  const checked = new Set<string>();

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
    expect({ op, departures: departures(res.body, response!.content!['application/json'].schema, doc) }).toEqual({ op, departures: [] });
    if (res.status < 300) checked.add(`${method.toLowerCase()} ${path}`);
  };
  const as = (req: request.Test) => req.set('Authorization', client.bearer);

  it('matches every success answer, operation by operation', async () => {
    const http = t.http;
    expectDocumented('GET /health', await request(http).get('/health'));
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
    expectDocumented('GET /api/v1/Item/{partNo}', await as(request(http).get(`/api/v1/Item/${created.body.partNo}`)));

    expectDocumented('POST /api/v1/Inventory/Receive', await as(request(http).post('/api/v1/Inventory/Receive')).send({ itemID: 'DOC-1', units: 10, wid: 1, reasonCode: 1, serial: 'S1' }));
    expectDocumented('POST /api/v1/Inventory/Issue', await as(request(http).post('/api/v1/Inventory/Issue')).send({ itemID: 'DOC-1', units: 2.5, wid: 1, reasonCode: 2 }));
    expectDocumented('POST /api/v1/Inventory/Move', await as(request(http).post('/api/v1/Inventory/Move')).send({ itemID: 'DOC-1', units: 1, wid: 1, shipToWid: 2 }));
    expectDocumented('GET /api/v1/Inventory', await as(request(http).get('/api/v1/Inventory')));
    expectDocumented('GET /api/v1/Inventory/{wid}', await as(request(http).get('/api/v1/Inventory/2')));
    expectDocumented('GET /api/v1/Inventory/StockLevels', await as(request(http).get('/api/v1/Inventory/StockLevels')));
    expectDocumented('GET /api/v1/Inventory/StockLevels/{wid}', await as(request(http).get('/api/v1/Inventory/StockLevels/1')));
    expectDocumented('GET /api/v1/Inventory/Transactions', await as(request(http).get('/api/v1/Inventory/Transactions')));
    expectDocumented('DELETE /api/v1/Item/{shortID}', await as(request(http).delete('/api/v1/Item/DOC-1')));

    // Every documented operation was called and matched.
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)).sort();
    expect([...checked].sort()).toEqual(documented);
  });

  it('matches the failures too: 400, 401, 403 and 404 answers are the documented Error', async () => {
    const http = t.http;
    expectDocumented('POST /api/v1/Item', await as(request(http).post('/api/v1/Item')).send({}));
    expectDocumented('GET /api/v1/Inventory', await request(http).get('/api/v1/Inventory'));
    expectDocumented('POST /api/v1/Token', await request(http).post('/api/v1/Token').type('form').send({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' }));
    expectDocumented('POST /api/v1/Inventory/Receive', await as(request(http).post('/api/v1/Inventory/Receive')).send({ itemID: 'DOC-1', units: 1, wid: 3, reasonCode: 1 }));
    const missing = await as(request(http).get('/api/v1/Item/999999'));
    expect(missing.status).toBe(404);
    expect(departures(missing.body, { $ref: '#/components/schemas/Error' }, doc)).toEqual([]);
  });

  it('reports a departure when a field is missing, extra, mistyped or out of order (the check itself can fail)', () => {
    const item = { $ref: '#/components/schemas/StockLevel' };
    const good = { partNo: 1, shortID: 'A', available: 1, inStock: 1, onOrder: 0, onHold: 0, committed: 0, packed: 0, aSN: 0 };
    expect(departures(good, item, doc)).toEqual([]);
    const { aSN: _, ...short } = good;
    expect(departures(short, item, doc)).not.toEqual([]);
    expect(departures({ ...good, extra: 1 }, item, doc)).not.toEqual([]);
    expect(departures({ ...good, partNo: '1' }, item, doc)).not.toEqual([]);
    const { partNo, ...rest } = good;
    expect(departures({ ...rest, partNo }, item, doc)).not.toEqual([]);
  });
});
