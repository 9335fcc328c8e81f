/**
 * The README's Quick start walk-through, written as a connector team would
 * write it: with openapi-fetch over the types openapi-typescript generates
 * from the served document (`./openapi.d.ts`, made by
 * `test/generated-client.e2e-spec.ts`). It only compiles if every path,
 * parameter, body field and answer field it uses is in the document, and it
 * sees the 404 and 409 answers as typed errors.
 *
 * node dist/client/walkthrough.js <baseUrl> <clientId> <clientSecret>
 * prints one JSON line per step; any unexpected answer exits non-zero.
 */
import assert from 'node:assert/strict';
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.js';

type ConflictDetails = components['schemas']['ConflictDetails'];

/**
 * What a connector does with a 409, switching on `details.reason` (DECISIONS
 * "Conflicts"). Exhaustive: a reason missing from the document's enum makes
 * its `case` fail to compile, and one the switch lacks makes `unhandled` fail.
 */
function nextStep(details: ConflictDetails): string {
  switch (details.reason) {
    case 'insufficient_stock':
      return `short by ${(details.requested ?? 0) - (details.available ?? 0)}`;
    case 'duplicate_short_id':
      return `use the existing ${details.shortID}`;
    case 'item_discontinued':
      return `${details.itemID} is discontinued`;
    case 'stock_bound':
      return `at most ${details.bound}`;
    case 'count_changed':
      return `recount: ${details.onHand} on hand, not ${details.expected}`;
    case 'request_in_progress':
    case 'concurrent_change':
      return 'retry after Retry-After';
    case 'batch_too_large':
      return `split the batch below ${details.limit} lots`;
    case 'allocation_closed':
      return `allocation ${details.allocationId} is ${details.state}`;
    case 'expectation_closed':
      return `expectation ${details.expectationId} is ${details.state}`;
    default: {
      const unhandled: never = details.reason;
      return unhandled;
    }
  }
}

async function walkthrough(baseUrl: string, clientId: string, clientSecret: string): Promise<void> {
  const api = createClient<paths>({ baseUrl });
  const step = (name: string, status: number, detail: object = {}) => process.stdout.write(`${JSON.stringify({ step: name, status, ...detail })}\n`);

  const health = await api.GET('/health');
  assert.equal(health.data?.database, 'up');
  step('health', health.response.status);

  // POST /Token, client credentials as form fields (as curl -d sends them).
  const token = await api.POST('/api/v1/Token', {
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    bodySerializer: (body) => new URLSearchParams(body as Record<string, string>),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  assert.ok(token.data, `token: ${token.response.status}`);
  assert.equal(token.data.token_type, 'bearer');
  step('token', token.response.status, { expires_in: token.data.expires_in });
  api.use({ onRequest: ({ request }) => (request.headers.set('Authorization', `Bearer ${token.data.access_token}`), request) });

  const created = await api.POST('/api/v1/Item', { body: { shortID: 'BOLT-M8', description: 'Hex bolt M8', uOM: 'EA' } });
  assert.ok(created.data, `create: ${created.response.status}`);
  assert.equal(created.data.status, 'created');
  const partNo: number = created.data.partNo;
  step('create item', created.response.status, { partNo, location: created.response.headers.get('Location') });

  const list = await api.GET('/api/v1/Item');
  assert.ok(list.data && 'value' in list.data, `list: ${list.response.status}`);
  assert.deepEqual(list.data.value.map((item) => item.shortID), ['BOLT-M8']);
  step('list items', list.response.status, { totalCount: list.data.totalCount });

  const byKey = await api.GET('/api/v1/Item', { params: { query: { key: 'bolt-m8' } } });
  assert.ok(byKey.data && !Array.isArray(byKey.data) && 'partNo' in byKey.data, `key: ${byKey.response.status}`);
  assert.equal(byKey.data.partNo, partNo);
  const byPartNo = await api.GET('/api/v1/Item/{item}', { params: { path: { item: partNo } } });
  assert.ok(byPartNo.data, `by partNo: ${byPartNo.response.status}`);
  assert.equal(byPartNo.data.shortID, 'BOLT-M8');
  step('look up by key and partNo', byPartNo.response.status, { shortID: byPartNo.data.shortID });

  const receipt = { itemID: 'BOLT-M8', units: 100, wid: 1, reasonCode: 1, spot: 'A-01', reference: 'PO-4711' };
  const idempotent = { header: { 'Idempotency-Key': 'po-4711-line-1' } };
  const received = await api.POST('/api/v1/Inventory/Receive', { params: idempotent, body: receipt });
  assert.ok(received.data, `receive: ${received.response.status}`);
  const replayed = await api.POST('/api/v1/Inventory/Receive', { params: idempotent, body: receipt });
  assert.equal(replayed.response.headers.get('Idempotent-Replayed'), 'true');
  assert.equal(replayed.data?.recNo, received.data.recNo);
  step('receive, then the same Idempotency-Key again', received.response.status, { recNo: received.data.recNo, lotUnits: received.data.lot.units });

  const issued = await api.POST('/api/v1/Inventory/Issue', { body: { itemID: 'BOLT-M8', units: 30, wid: 1, reasonCode: 2 } });
  assert.ok(issued.data, `issue: ${issued.response.status}`);
  assert.equal(issued.data.units, 30);
  step('issue', issued.response.status, { units: issued.data.units });

  const levels = await api.GET('/api/v1/Inventory/StockLevels');
  assert.ok(levels.data, `stock levels: ${levels.response.status}`);
  const [bolt] = levels.data.value;
  assert.deepEqual({ shortID: bolt.shortID, available: bolt.available, inStock: bolt.inStock }, { shortID: 'BOLT-M8', available: 70, inStock: 70 });
  step('stock levels', levels.response.status, { available: bolt.available });

  // Failures are typed per status: narrowing on statusCode gives the codes the document names for it.
  const missing = await api.GET('/api/v1/Item/{item}', { params: { path: { item: 999_999 } } });
  assert.ok(missing.error && 'statusCode' in missing.error && missing.error.statusCode === 404, `missing: ${missing.response.status}`);
  const notFound: 'not_found' = missing.error.error;
  step('unknown item', missing.response.status, { error: notFound });

  const tooMany = await api.POST('/api/v1/Inventory/Issue', { body: { itemID: 'BOLT-M8', units: 1000, wid: 1, reasonCode: 2 } });
  assert.ok(tooMany.error && 'statusCode' in tooMany.error && tooMany.error.statusCode === 409, `issue 1000: ${tooMany.response.status}`);
  const conflict: 'conflict' = tooMany.error.error;
  assert.match(tooMany.error.message, /^Insufficient stock/);
  assert.equal(nextStep(tooMany.error.details), 'short by 930');
  step('issue more than in stock', tooMany.response.status, { error: conflict, reason: tooMany.error.details.reason, message: tooMany.error.message });

  const duplicate = await api.POST('/api/v1/Item', { body: { shortID: 'bolt-m8' } });
  assert.ok(duplicate.error && 'statusCode' in duplicate.error && duplicate.error.statusCode === 409, `duplicate: ${duplicate.response.status}`);
  assert.equal(nextStep(duplicate.error.details), 'use the existing bolt-m8');
  step('duplicate item', duplicate.response.status, { error: duplicate.error.error, reason: duplicate.error.details.reason });
}

const [baseUrl, clientId, clientSecret] = process.argv.slice(2);
walkthrough(baseUrl, clientId, clientSecret).catch((error: unknown) => {
  process.stderr.write(`walkthrough failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
