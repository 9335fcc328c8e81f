import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ClientCredentials } from 'simple-oauth2';
import request from 'supertest';
import { AdminService } from '../src/auth/admin.service.js';
import { hashCredential } from '../src/auth/credentials.js';
import { SecurityId } from '../src/auth/security-id.js';
import { startTestApp, testDatabaseKind, type TestApp, type TestAppOptions } from './app.factory.js';
import { givenClient, tokenFor } from './support/auth.js';
import { ProbeModule } from './support/probe.module.js';

const TOKEN = '/api/v1/Token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`POST /Token and bearer tokens (${testDatabaseKind()})`, () => {
  let t: TestApp;
  const logged: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    t = await startTestApp({ config: { accountCacheSeconds: 1 }, logger: pino({ level: 'trace' }, sink), imports: [ProbeModule] });
  });
  afterAll(() => t.close());

  const form = (fields: Record<string, string>) => request(t.http).post(TOKEN).type('form').send(fields);

  it('creates an admin client on the first start, and only then', async () => {
    expect(t.admin).toMatchObject({ group: 'admin', warehouses: [1] });
    expect(t.admin?.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await t.app.get(AdminService).bootstrapIfEmpty()).toBeNull();
  });

  it('issues a token for form fields, with no-store headers', async () => {
    const res = await form({ grant_type: 'client_credentials', client_id: t.admin!.clientId, client_secret: t.admin!.clientSecret });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(Object.keys(res.body)).toEqual(['access_token', 'token_type', 'expires_in']);
    expect(res.body.token_type).toBe('bearer');
    expect(res.body.expires_in).toBe(14400);
    // 256 random bits, base64url.
    expect(res.body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('issues a token for JSON fields', async () => {
    const res = await request(t.http)
      .post(TOKEN)
      .send({ grant_type: 'client_credentials', client_id: t.admin!.clientId, client_secret: t.admin!.clientSecret });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('bearer');
  });

  it('issues a token for HTTP Basic', async () => {
    const res = await request(t.http).post(TOKEN).auth(t.admin!.clientId, t.admin!.clientSecret).type('form').send({ grant_type: 'client_credentials' });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('gives every token a new value', async () => {
    const a = await tokenFor(t, t.admin!.clientId, t.admin!.clientSecret);
    const b = await tokenFor(t, t.admin!.clientId, t.admin!.clientSecret);
    expect(a).not.toBe(b);
  });

  it('answers a wrong secret, an unknown client and a disabled client the same: 401 invalid_client', async () => {
    const disabled = await givenClient(t);
    await t.app.get(AdminService).setDisabled(disabled.clientId, true);
    const answers = await Promise.all([
      form({ grant_type: 'client_credentials', client_id: t.admin!.clientId, client_secret: 'wrong' }),
      form({ grant_type: 'client_credentials', client_id: 'c_nobody', client_secret: t.admin!.clientSecret }),
      form({ grant_type: 'client_credentials', client_id: disabled.clientId, client_secret: disabled.clientSecret }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ statusCode: 401, error: 'invalid_client', message: 'Client authentication failed.', details: null });
      expect(res.headers['www-authenticate']).toBeUndefined();
    }
  });

  it('adds WWW-Authenticate: Basic when Basic credentials fail', async () => {
    const res = await request(t.http).post(TOKEN).auth(t.admin!.clientId, 'wrong').type('form').send({ grant_type: 'client_credentials' });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.headers['www-authenticate']).toBe('Basic realm="inventory"');
  });

  const basic = (userPass: string) =>
    request(t.http).post(TOKEN).set('Authorization', `Basic ${Buffer.from(userPass).toString('base64')}`).type('form').send({ grant_type: 'client_credentials' });

  it('splits HTTP Basic at the first colon: a secret with anything appended is a wrong secret', async () => {
    const { clientId, clientSecret } = t.admin!;
    expect((await basic(`${clientId}:${clientSecret}`)).status).toBe(200);
    for (const wrong of [`${clientId}:${clientSecret}:anything`, `${clientId}:${clientSecret}:`, `${clientId}:${clientSecret.slice(0, 20)}:${clientSecret.slice(20)}`]) {
      const res = await basic(wrong);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ statusCode: 401, error: 'invalid_client', message: 'Client authentication failed.', details: null });
      expect(res.headers['www-authenticate']).toBe('Basic realm="inventory"');
    }
  });

  it('accepts a secret that itself holds a colon, sent as is or form-encoded', async () => {
    const client = await givenClient(t);
    // Our secrets are base64url; one with a colon can only be planted directly.
    await t.dataSource.query('UPDATE integration_client SET secretHash = ? WHERE clientId = ?', [hashCredential('ab:cd:ef'), client.clientId]);
    expect((await basic(`${client.clientId}:ab:cd:ef`)).status).toBe(200);
    expect((await basic(`${client.clientId}:ab%3Acd%3Aef`)).status).toBe(200);
    expect((await basic(`${client.clientId}:ab:cd`)).status).toBe(401);
    expect((await basic(`${client.clientId}:ab`)).status).toBe(401);
  });

  it.each(['Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, `Basic ${Buffer.from(':secret').toString('base64')}`])(
    'answers a malformed Basic header %j with 401 invalid_client',
    async (header) => {
      const res = await request(t.http).post(TOKEN).set('Authorization', header).type('form').send({ grant_type: 'client_credentials' });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    },
  );

  it.each([
    [{ client_id: 'x', client_secret: 'y' }, 'grant_type is required.'],
    [{ grant_type: 'client_credentials', client_id: 'x' }, 'client_id and client_secret are required.'],
    [{ grant_type: 'client_credentials' }, 'client_id and client_secret are required.'],
  ])('answers missing parts %j with 400 invalid_request', async (fields, message) => {
    const res = await form(fields as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'invalid_request', message, details: null });
  });

  it('answers a repeated field with 400 invalid_request', async () => {
    const res = await request(t.http).post(TOKEN).type('form').send('grant_type=client_credentials&grant_type=client_credentials&client_id=a&client_secret=b');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('answers another grant type with 400 unsupported_grant_type', async () => {
    const res = await form({ grant_type: 'password', client_id: t.admin!.clientId, client_secret: t.admin!.clientSecret });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, error: 'unsupported_grant_type', message: 'grant_type must be client_credentials.', details: null });
  });

  it('refuses credentials sent both as Basic and in the body', async () => {
    const res = await request(t.http)
      .post(TOKEN)
      .auth(t.admin!.clientId, t.admin!.clientSecret)
      .type('form')
      .send({ grant_type: 'client_credentials', client_secret: t.admin!.clientSecret });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('stores secrets and tokens only as hashes', async () => {
    const token = await tokenFor(t, t.admin!.clientId, t.admin!.clientSecret);
    const clients: Array<{ secretHash: string }> = await t.dataSource.query('SELECT secretHash FROM integration_client');
    const tokens: Array<{ tokenHash: string }> = await t.dataSource.query('SELECT tokenHash FROM access_token');
    for (const row of clients) expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(tokens.map((r) => r.tokenHash)).not.toContain(token);
    expect(JSON.stringify(await t.dataSource.query('SELECT * FROM integration_client'))).not.toContain(t.admin!.clientSecret);
  });

  it('never writes a secret or a token to the log', async () => {
    const token = await tokenFor(t, t.admin!.clientId, t.admin!.clientSecret);
    expect((await request(t.http).get('/api/v1/__probe/secured/11').set('Authorization', `Bearer ${token}`)).status).toBe(200);
    const all = logged.join('');
    const lines = logged.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'request', route: '/api/v1/__probe/secured/11', status: 200, clientId: t.admin!.clientId }));
    expect(all).not.toContain(t.admin!.clientSecret);
    expect(all).not.toContain(token);
  });
});

/** An app with the probe routes and the given settings, and a GET on the SecurityID 11 probe. */
function probeApp(config: TestAppOptions['config']) {
  const ctx = {} as { t: TestApp; probe: (token?: string) => request.Test };
  beforeAll(async () => {
    ctx.t = await startTestApp({ config, imports: [ProbeModule] });
    ctx.probe = (token?: string) => {
      const r = request(ctx.t.http).get('/api/v1/__probe/secured/11');
      return token ? r.set('Authorization', `Bearer ${token}`) : r;
    };
  });
  afterAll(() => ctx.t.close());
  return ctx;
}

describe(`bearer tokens: presence and lifetime (${testDatabaseKind()})`, () => {
  const ctx = probeApp({ tokenTtlSeconds: 2 });

  it('answers no token with 401 unauthorized and a Bearer challenge', async () => {
    const res = await ctx.probe();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, error: 'unauthorized', message: 'A bearer token is required.', details: null });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="inventory"');
  });

  it('answers a forged token with 401 and error="invalid_token"', async () => {
    const res = await ctx.probe('A'.repeat(43));
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('The access token is invalid.');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="inventory", error="invalid_token"');
  });

  it('reports expires_in from TOKEN_TTL_SECONDS and refuses the token once it has expired', async () => {
    const client = await givenClient(ctx.t, { permissions: [SecurityId.ItemMasterList] });
    const res = await request(ctx.t.http)
      .post(TOKEN)
      .send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
    expect(res.body.expires_in).toBe(2);
    expect((await ctx.probe(res.body.access_token)).status).toBe(200);
    await sleep(2100);
    const expired = await ctx.probe(res.body.access_token);
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ statusCode: 401, error: 'unauthorized', message: 'The access token has expired; request a new one.', details: null });
    expect(expired.headers['www-authenticate']).toBe('Bearer realm="inventory", error="invalid_token"');
  });
});

describe(`bearer tokens: rotation and disabling (${testDatabaseKind()})`, () => {
  const ctx = probeApp({ accountCacheSeconds: 1 });

  it('after a secret rotation refuses the old secret, accepts the new one, and keeps old tokens working', async () => {
    const client = await givenClient(ctx.t, { permissions: [SecurityId.ItemMasterList] });
    const rotated = await ctx.t.app.get(AdminService).rotateSecret(client.clientId);
    expect(rotated.clientSecret).not.toBe(client.clientSecret);
    const old = await request(ctx.t.http).post(TOKEN).auth(client.clientId, client.clientSecret).type('form').send({ grant_type: 'client_credentials' });
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    expect((await ctx.probe(client.token)).status).toBe(200);
    const fresh = await tokenFor(ctx.t, client.clientId, rotated.clientSecret);
    expect((await ctx.probe(fresh)).status).toBe(200);
  });

  it('after disabling refuses new tokens at once and old tokens within ACCOUNT_CACHE_SECONDS, and enabling revives none', async () => {
    const client = await givenClient(ctx.t, { permissions: [SecurityId.ItemMasterList] });
    expect((await ctx.probe(client.token)).status).toBe(200);
    await ctx.t.app.get(AdminService).setDisabled(client.clientId, true);
    const refused = await request(ctx.t.http)
      .post(TOKEN)
      .send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
    await sleep(1100);
    const old = await ctx.probe(client.token);
    expect(old.status).toBe(401);
    expect(old.headers['www-authenticate']).toBe('Bearer realm="inventory", error="invalid_token"');
    await ctx.t.app.get(AdminService).setDisabled(client.clientId, false);
    await sleep(1100);
    const revived = await ctx.probe(client.token);
    expect(revived.status).toBe(401);
    expect(revived.body.message).toBe('The access token is invalid.');
    // New tokens work again.
    expect((await ctx.probe(await tokenFor(ctx.t, client.clientId, client.clientSecret))).status).toBe(200);
  });

  it('revokes on disable also where the account was cached as enabled throughout', async () => {
    const client = await givenClient(ctx.t, { permissions: [SecurityId.ItemMasterList] });
    expect((await ctx.probe(client.token)).status).toBe(200);
    // Off and on again quicker than the account cache: this instance never saw the client disabled.
    await ctx.t.app.get(AdminService).setDisabled(client.clientId, true);
    await ctx.t.app.get(AdminService).setDisabled(client.clientId, false);
    await sleep(1100);
    expect((await ctx.probe(client.token)).status).toBe(401);
  });
});

describe(`a real OAuth 2.0 client library (simple-oauth2) (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp({ imports: [ProbeModule] });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  it.each(['body', 'header'] as const)('gets a token with credentials in the %s and calls the API with it', async (authorizationMethod) => {
    const oauth = new ClientCredentials({
      client: { id: t.admin!.clientId, secret: t.admin!.clientSecret },
      auth: { tokenHost: base, tokenPath: '/api/v1/Token' },
      options: { authorizationMethod },
    });
    const accessToken = await oauth.getToken({});
    expect(accessToken.token.token_type).toBe('bearer');
    expect(accessToken.expired()).toBe(false);
    const res = await fetch(`${base}/api/v1/__probe/secured/11`, { headers: { Authorization: `Bearer ${accessToken.token.access_token as string}` } });
    expect(res.status).toBe(200);
  });
});
