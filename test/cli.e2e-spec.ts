import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import request from 'supertest';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { tokenFor } from './support/auth.js';
import { ProbeModule } from './support/probe.module.js';

// The admin CLI as an operator runs it: the built dist/src/cli.js (npm test builds first).
const CLI = 'dist/src/cli.js';

describe(`admin CLI (${testDatabaseKind()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);
    // A short account cache, so that a disable shows in seconds.
    t = await startTestApp({ imports: [ProbeModule], config: { accountCacheSeconds: 1 } });
  });
  afterAll(() => t.close());

  function cli(...args: string[]) {
    const r = spawnSync(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.database.url },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) as Record<string, unknown> };
  }

  /**
   * Bad input: exit non-zero, `error: …` on stderr, nothing on stdout, nothing written. A command
   * line it cannot take (exit 2) is followed by one `usage: …` line (`usage`); input the command
   * itself refuses (exit 1) is the error line alone.
   */
  async function expectRefused(args: string[], message: RegExp, usage?: RegExp) {
    const before = await counts();
    const r = cli(...args);
    const lines = r.stderr.trim().split('\n');
    expect(r.stdout).toBe('');
    expect(lines[0]).toMatch(/^error: /);
    expect(lines[0]).toMatch(message);
    if (usage) {
      expect(r.status).toBe(2);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(usage);
    } else {
      expect(r.status).toBe(1);
      expect(lines).toHaveLength(1);
    }
    expect(await counts()).toEqual(before);
  }

  async function counts() {
    const n = async (table: string) => Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
    return { warehouses: await n('warehouse'), groups: await n('permission_group'), clients: await n('integration_client'), scope: await n('client_warehouse') };
  }

  it('warehouse:create creates a warehouse', () => {
    const r = cli('warehouse:create', '--id', '2', '--name', 'North');
    expect(r.status).toBe(0);
    expect(r.json()).toEqual({ wID: 2, name: 'North' });
  });

  it('warehouse:create refuses a taken id, a taken name in any case, and a bad id', async () => {
    await expectRefused(['warehouse:create', '--id', '2', '--name', 'Other'], /warehouse 2 already exists/);
    await expectRefused(['warehouse:create', '--id', '3', '--name', 'NORTH'], /already exists/);
    await expectRefused(['warehouse:create', '--id', 'two', '--name', 'South'], /--id must be a whole number/);
    await expectRefused(['warehouse:create', '--id', '0', '--name', 'South'], /--id must be a whole number/);
    await expectRefused(['warehouse:create', '--name', 'South'], /needs --id/, /^usage: npm run --silent cli -- warehouse:create --id 2 --name "North"$/);
    await expectRefused(['warehouse:create', '--id', '3', '--name', 'South', '--colour', 'red'], /Unknown option '--colour'/, /^usage: npm run --silent cli -- warehouse:create /);
  });

  it('group:create creates a group with its SecurityIDs', () => {
    const r = cli('group:create', '--name', 'pickers', '--permissions', '11,15,88');
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ name: 'pickers', permissions: [11, 15, 88] });
  });

  it('group:create refuses an unknown SecurityID and a taken name', async () => {
    await expectRefused(['group:create', '--name', 'typo', '--permissions', '11,12'], /unknown SecurityID 12/);
    await expectRefused(['group:create', '--name', 'PICKERS', '--permissions', '11'], /already exists/);
    await expectRefused(['group:create', '--name', 'x', '--permissions', '11;15'], /--permissions must be a comma-separated list/);
  });

  it('client:create creates a client whose credentials get a token scoped as asked', async () => {
    const r = cli('client:create', '--name', 'erp', '--group', 'pickers', '--warehouses', '1,2');
    expect(r.status).toBe(0);
    const creds = r.json() as { clientId: string; clientSecret: string };
    expect(Object.keys(creds)).toEqual(['clientId', 'clientSecret']);
    const token = await tokenFor(t, creds.clientId, creds.clientSecret);
    const scope = await request(t.http).post('/api/v1/__probe/secured/scope').set('Authorization', `Bearer ${token}`).send({ wid: 2, shipToWid: 1 });
    expect(scope.status).toBe(200);
    expect(scope.body).toEqual({ warehouses: [1, 2] });
    // The group has no SecurityID 95.
    expect((await request(t.http).post('/api/v1/__probe/secured/95').set('Authorization', `Bearer ${token}`)).status).toBe(403);
  });

  it('client:create --read-only makes a client that can read but not write', async () => {
    const r = cli('client:create', '--name', 'auditor', '--group', 'pickers', '--warehouses', '1', '--read-only');
    expect(r.status).toBe(0);
    const creds = r.json() as { clientId: string; clientSecret: string };
    const bearer = `Bearer ${await tokenFor(t, creds.clientId, creds.clientSecret)}`;
    expect((await request(t.http).get('/api/v1/__probe/secured/11').set('Authorization', bearer)).status).toBe(200);
    const write = await request(t.http).post('/api/v1/__probe/secured/15').set('Authorization', bearer);
    expect(write.body.message).toBe('Account is read-only.');
  });

  it('client:create refuses an unknown group, an unknown warehouse and a taken name, writing nothing', async () => {
    await expectRefused(['client:create', '--name', 'x1', '--group', 'nobody', '--warehouses', '1'], /unknown group "nobody"/);
    await expectRefused(['client:create', '--name', 'x2', '--group', 'pickers', '--warehouses', '1,9'], /unknown warehouse 9/);
    await expectRefused(['client:create', '--name', 'ERP', '--group', 'pickers', '--warehouses', '1'], /already exists/);
    await expectRefused(['client:create', '--name', 'x3', '--group', 'pickers', '--warehouses', '1', '--bogus'], /Unknown option '--bogus'/, /^usage: npm run --silent cli -- client:create --name erp --group pickers --warehouses 1,2 \[--read-only\]$/);
  });

  it('client:disable and client:enable switch a client off and on', async () => {
    const creds = cli('client:create', '--name', 'flip', '--group', 'pickers', '--warehouses', '1').json() as { clientId: string; clientSecret: string };
    const off = cli('client:disable', '--client-id', creds.clientId);
    expect(off.status).toBe(0);
    expect(off.json()).toEqual({ clientId: creds.clientId, disabled: true });
    const refused = await request(t.http).post('/api/v1/Token').auth(creds.clientId, creds.clientSecret).type('form').send({ grant_type: 'client_credentials' });
    expect(refused.status).toBe(401);
    const on = cli('client:enable', '--client-id', creds.clientId);
    expect(on.json()).toEqual({ clientId: creds.clientId, disabled: false });
    await tokenFor(t, creds.clientId, creds.clientSecret);
  });

  it('client:enable does not revive the tokens issued before client:disable', async () => {
    const creds = cli('client:create', '--name', 'revive', '--group', 'pickers', '--warehouses', '1').json() as { clientId: string; clientSecret: string };
    const probe = (token: string) => request(t.http).get('/api/v1/__probe/secured/11').set('Authorization', `Bearer ${token}`);
    const before = await tokenFor(t, creds.clientId, creds.clientSecret);
    expect((await probe(before)).status).toBe(200);
    expect(cli('client:disable', '--client-id', creds.clientId).status).toBe(0);
    await new Promise((r) => setTimeout(r, 1100)); // ACCOUNT_CACHE_SECONDS
    expect((await probe(before)).status).toBe(401);
    expect(cli('client:enable', '--client-id', creds.clientId).status).toBe(0);
    await new Promise((r) => setTimeout(r, 1100));
    const after = await tokenFor(t, creds.clientId, creds.clientSecret);
    expect((await probe(after)).status).toBe(200);
    const old = await probe(before);
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ statusCode: 401, error: 'unauthorized', message: 'The access token is invalid.', details: null });
  });

  it('client:rotate-secret replaces the secret', async () => {
    const creds = cli('client:create', '--name', 'rotor', '--group', 'pickers', '--warehouses', '1').json() as { clientId: string; clientSecret: string };
    const r = cli('client:rotate-secret', '--client-id', creds.clientId);
    expect(r.status).toBe(0);
    const rotated = r.json() as { clientId: string; clientSecret: string };
    expect(rotated.clientId).toBe(creds.clientId);
    expect(rotated.clientSecret).not.toBe(creds.clientSecret);
    await expect(tokenFor(t, creds.clientId, creds.clientSecret)).rejects.toThrow(/401/);
    await tokenFor(t, creds.clientId, rotated.clientSecret);
  });

  it('client:list lists every client with its group, SecurityIDs, warehouses and state, never a secret', async () => {
    const created = cli('client:create', '--name', 'lister', '--group', 'pickers', '--warehouses', '2,1', '--read-only').json() as { clientId: string; clientSecret: string };
    expect(cli('client:disable', '--client-id', created.clientId).status).toBe(0);
    const r = cli('client:list');
    expect(r.status).toBe(0);
    const { clients } = r.json() as { clients: Array<Record<string, unknown>> };
    expect(clients.map((c) => c.name)).toEqual(expect.arrayContaining(['admin', 'erp', 'lister']));
    const listed = clients.find((c) => c.clientId === created.clientId);
    expect(listed).toEqual({
      clientId: created.clientId,
      name: 'lister',
      group: 'pickers',
      permissions: [11, 15, 88],
      warehouses: [1, 2],
      readOnly: true,
      disabled: true,
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      secretRotated: null,
    });
    expect(r.stdout).not.toContain(created.clientSecret);
    expect(r.stdout).not.toMatch(/secret"?:/i);
  });

  it('client commands refuse an unknown client id', async () => {
    for (const command of ['client:disable', 'client:enable', 'client:rotate-secret']) {
      await expectRefused([command, '--client-id', 'c_nobody'], /unknown client "c_nobody"/);
    }
  });

  it('alias:create points an alias at an item, found by GET /Item?type=alias', async () => {
    const admin = `Bearer ${await tokenFor(t, t.admin!.clientId, t.admin!.clientSecret)}`;
    const created = await request(t.http).post('/api/v1/Item').set('Authorization', admin).send({ shortID: 'ABC-1' });
    const r = cli('alias:create', '--short-id', 'abc-1', '--alias', 'CUST-9');
    expect(r.status).toBe(0);
    expect(r.json()).toEqual({ alias: 'CUST-9', shortID: 'ABC-1', partNo: created.body.partNo });
    const found = await request(t.http).get('/api/v1/Item?key=cust-9&type=alias').set('Authorization', admin);
    expect(found.body.partNo).toBe(created.body.partNo);
  });

  it('alias:create refuses a taken alias in any case, an unknown item and a bad alias', async () => {
    const aliases = async () => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM item_alias'))[0].n);
    const before = await aliases();
    await expectRefused(['alias:create', '--short-id', 'ABC-1', '--alias', 'cust-9'], /alias "cust-9" already exists/);
    await expectRefused(['alias:create', '--short-id', 'NOPE', '--alias', 'CUST-10'], /No item with shortID "NOPE"/);
    await expectRefused(['alias:create', '--short-id', 'ABC-1', '--alias', 'a/b'], /alias must not contain \/, \? or #/);
    await expectRefused(['alias:create', '--short-id', 'ABC-1'], /needs --alias/, /^usage: npm run --silent cli -- alias:create --short-id ABC-1 --alias CUST-9$/);
    expect(await aliases()).toBe(before);
  });

  it('refuses an unknown command or none, in one line', async () => {
    await expectRefused(['client:delete', '--client-id', 'x'], /unknown command "client:delete"/, /^usage: .*commands: warehouse:create, .*client:rotate-secret.*--help/);
    await expectRefused([], /no command given/, /^usage: /);
  });

  it('prints every usage with --help, and one command\'s with <command> --help', () => {
    const r = cli('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('client:rotate-secret --client-id X');
    const one = cli('webhook:create', '--help');
    expect({ status: one.status, stdout: one.stdout, stderr: one.stderr }).toEqual({
      status: 0,
      stdout: 'usage: npm run --silent cli -- webhook:create --client-id X --url https://erp.example.com/hooks [--types stock.*,item.created]\n',
      stderr: '',
    });
  });
});
