import request from 'supertest';
import { ALL_SECURITY_IDS, isWrite, SecurityId } from '../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient } from './support/auth.js';
import { ProbeModule } from './support/probe.module.js';

/**
 * The access rules on probe routes, one per SecurityID. The same rules on the
 * real routes are in each feature's own specs.
 */
describe(`SecurityIDs, read-only accounts and warehouse scope (${testDatabaseKind()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ imports: [ProbeModule] });
  });
  afterAll(() => t.close());

  const call = (id: SecurityId, bearer: string) => {
    const path = `/api/v1/__probe/secured/${id}`;
    return (isWrite(id) ? request(t.http).post(path) : request(t.http).get(path)).set('Authorization', bearer);
  };

  it.each(ALL_SECURITY_IDS)('refuses SecurityID %i to a client without it: 403 "Insufficient permissions."', async (id) => {
    const without = await givenClient(t, { permissions: ALL_SECURITY_IDS.filter((p) => p !== id) });
    const res = await call(id, without.bearer);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ statusCode: 403, error: 'forbidden', message: 'Insufficient permissions.', details: null });
    const withIt = await givenClient(t, { permissions: [id] });
    expect((await call(id, withIt.bearer)).status).toBe(200);
  });

  it('lets a read-only client read and refuses every write with 403 "Account is read-only."', async () => {
    const readOnly = await givenClient(t, { readOnly: true });
    expect((await call(SecurityId.ItemMasterList, readOnly.bearer)).status).toBe(200);
    for (const id of ALL_SECURITY_IDS.filter(isWrite)) {
      const res = await call(id, readOnly.bearer);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ statusCode: 403, error: 'forbidden', message: 'Account is read-only.', details: null });
    }
  });

  it('checks read-only before the SecurityID (DECISIONS "Errors" order)', async () => {
    const readOnlyWithout = await givenClient(t, { readOnly: true, permissions: [] });
    expect((await call(SecurityId.PositiveAdjustment, readOnlyWithout.bearer)).body.message).toBe('Account is read-only.');
    expect((await call(SecurityId.ItemMasterList, readOnlyWithout.bearer)).body.message).toBe('Insufficient permissions.');
  });

  it('checks the token before anything else', async () => {
    const res = await request(t.http).post('/api/v1/__probe/secured/95').send('{not json').set('Content-Type', 'application/json');
    // Malformed JSON is found by the body parser, before any route; with a valid body the token is next.
    expect(res.status).toBe(400);
    const noToken = await request(t.http).post('/api/v1/__probe/secured/95').send({});
    expect(noToken.status).toBe(401);
  });

  it('refuses a route that declares no SecurityID (fails closed)', async () => {
    const admin = await givenClient(t);
    const res = await request(t.http).get('/api/v1/__probe/secured/undeclared').set('Authorization', admin.bearer);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Insufficient permissions.');
  });

  describe('warehouse scope', () => {
    const scope = (bearer: string, body: object) =>
      request(t.http).post('/api/v1/__probe/secured/scope').set('Authorization', bearer).send(body);
    const OUT = { statusCode: 403, error: 'forbidden', message: "Warehouse is outside the client's authorized scope.", details: null };

    it('allows the warehouses assigned to the client', async () => {
      const client = await givenClient(t, { warehouses: [1, 2] });
      const res = await scope(client.bearer, { wid: 1, shipToWid: 2 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ warehouses: [1, 2] });
    });

    it('refuses wid 2 to a client scoped to warehouse 1', async () => {
      const client = await givenClient(t, { warehouses: [1] });
      const res = await scope(client.bearer, { wid: 2 });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(OUT);
    });

    it('refuses shipToWid 2 to a client scoped to warehouse 1', async () => {
      const client = await givenClient(t, { warehouses: [1] });
      const res = await scope(client.bearer, { wid: 1, shipToWid: 2 });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(OUT);
    });

    it('refuses a warehouse that does not exist the same way', async () => {
      const client = await givenClient(t, { warehouses: [1] });
      expect((await scope(client.bearer, { wid: 999 })).body).toEqual(OUT);
    });

    it('validates the body before checking scope', async () => {
      const client = await givenClient(t, { warehouses: [1] });
      const res = await scope(client.bearer, { wid: 'two' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_error');
    });
  });
});
