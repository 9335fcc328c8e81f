import { existsSync } from 'node:fs';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { AdminService } from '../src/auth/admin.service.js';
import { SecurityId } from '../src/auth/security-id.js';
import { signature } from '../src/events/webhook-relay.js';
import { WebhookService } from '../src/events/webhooks.service.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { eventsAfter, type FedEvent, lastSeq } from './support/events.js';
import { receive } from './support/inventory.js';
import { cli, cliAsync, type Receiver, type Received, sleep, startReceiver, until } from './support/webhooks.js';

/** Webhooks (EXTENSIONS "Events"): subscriptions by the admin CLI, signed deliveries by the relay of the running service. */
describe(`Webhooks (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    if (!existsSync('dist/src/cli.js')) throw new Error('dist/src/cli.js is missing: run npm run build');
    // Short retries and a short account cache, so that a retry or a disable shows in seconds.
    t = await startTestApp({ config: { webhookRetrySeconds: [1, 1], accountCacheSeconds: 1 } });
    admin = await givenClient(t, { warehouses: [1, 2] });
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.close();
  });

  const webhooks = () => t.app.get(WebhookService);
  /** webhook:deliveries once it holds `count` attempts: a receiver has its answer before the relay records the attempt. */
  const recordedDeliveries = async (id: number, count: number) => {
    let rows: Awaited<ReturnType<WebhookService['deliveries']>>['deliveries'] = [];
    await until(async () => (rows = (await webhooks().deliveries(String(id))).deliveries).length >= count, 10_000, `${count} recorded attempts`);
    return rows;
  };
  const receiver = async (status?: Parameters<typeof startReceiver>[0]) => {
    const r = await startReceiver(status);
    receivers.push(r);
    return r;
  };
  /** webhook:create through the CLI, with loopback allowed as the receivers need. */
  const subscribe = (clientId: string, url: string, types?: string) => {
    const r = cli(t.database.url, ['webhook:create', '--client-id', clientId, '--url', url, ...(types ? ['--types', types] : [])], { WEBHOOK_ALLOW_PRIVATE: 'true' });
    if (r.status !== 0) throw new Error(`webhook:create failed: ${r.stderr}`);
    return r.json() as { id: number; url: string; types: string[] | null; secret: string };
  };
  const verified = (secret: string, got: Received) =>
    new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as FedEvent;
  const stockIn = async (bearer: string, wid = 1) => {
    const item = await givenItem(t, admin.bearer);
    await receive(t, bearer, { itemID: item.shortID, units: 5, wid }).expect(201);
    return item;
  };

  it('delivers each event committed after the subscription, in seq order, signed to the Standard Webhooks scheme, as the feed shows it', async () => {
    await stockIn(admin.bearer); // before the subscription: not delivered
    const r = await receiver();
    const from = await lastSeq(t);
    const sub = subscribe(admin.clientId, r.url);
    expect(Object.keys(sub)).toEqual(['id', 'url', 'types', 'secret']);
    expect(sub).toMatchObject({ url: r.url, types: null });
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const item = await stockIn(admin.bearer);
    await request(t.http).put('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: item.shortID, putUp: 'Box' }).expect(200);
    const feed = await eventsAfter(t, admin.bearer, from);
    expect(feed.map((e) => e.type)).toEqual(['item.created', 'stock.received', 'item.updated']);
    await until(() => r.received.length >= 3, 10_000, 'three deliveries');
    await sleep(300);
    expect(r.received).toHaveLength(3);

    const bodies = r.received.map((got) => verified(sub.secret, got));
    expect(bodies).toEqual(feed);
    for (const got of r.received) {
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['webhook-id']).toBe(JSON.parse(got.body).id);
      expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    }
    // What standardwebhooks refuses: a body changed on the way, another secret, and a signature of long ago (replay).
    const first = r.received[0];
    expect(() => verified(sub.secret, { ...first, body: first.body.replace('"seq":', '"seq":1') })).toThrow(/signature/i);
    expect(() => verified(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, first)).toThrow(/signature/i);
    const id = String(first.headers['webhook-id']);
    const old = Math.floor(Date.now() / 1000) - 3600;
    const replayed = { ...first.headers, 'webhook-timestamp': String(old), 'webhook-signature': signature(sub.secret, id, old, first.body) };
    expect(() => new Webhook(sub.secret).verify(first.body, replayed as unknown as Record<string, string>)).toThrow(/too old/i);

    await recordedDeliveries(sub.id, 3);
    const deliveries = cli(t.database.url, ['webhook:deliveries', '--id', String(sub.id)]);
    expect(deliveries.status).toBe(0);
    const attempts = (deliveries.json() as { deliveries: Array<Record<string, unknown>> }).deliveries;
    expect(attempts.map((a) => a.seq)).toEqual(feed.map((e) => e.seq).reverse());
    expect(attempts[0]).toEqual({ eventId: feed[2].id, seq: feed[2].seq, attempt: 1, status: 204, error: null, attemptedAt: expect.any(String), nextTry: null });
    await webhooks().delete(String(sub.id));
  });

  it('sends only the types asked for', async () => {
    const r = await receiver();
    const sub = subscribe(admin.clientId, r.url, 'item.created');
    expect(sub.types).toEqual(['item.created']);
    const item = await stockIn(admin.bearer);
    await until(() => r.received.length >= 1);
    await stockIn(admin.bearer);
    await until(() => r.received.length >= 2);
    await sleep(500);
    expect(r.received.map((got) => verified(sub.secret, got).type)).toEqual(['item.created', 'item.created']);
    expect((verified(sub.secret, r.received[0]).data as { shortID: string }).shortID).toBe(item.shortID);
    await webhooks().delete(String(sub.id));
  });

  it("sends a client limited to one warehouse only that warehouse's stock events (item events to all)", async () => {
    const north = await givenClient(t, { warehouses: [2], permissions: [SecurityId.ItemMasterList] });
    const r = await receiver();
    const sub = subscribe(north.clientId, r.url, 'stock.*');
    await stockIn(admin.bearer, 1);
    await stockIn(admin.bearer, 2);
    await stockIn(admin.bearer, 1);
    await until(() => r.received.length >= 1);
    await sleep(1500);
    const got = r.received.map((g) => verified(sub.secret, g));
    expect(got.map((e) => [e.type, e.data.levels!.map((l) => l.wid)])).toEqual([['stock.received', [2]]]);
    await webhooks().delete(String(sub.id));
  });

  it('retries a failed delivery after the pause, keeps the order, and webhook:deliveries shows every attempt newest first', async () => {
    // 500 to the first attempt, a redirect to a private address (not followed) to the second, then 200.
    const r = await receiver((n) => (n === 1 ? 500 : n === 2 ? { status: 302, headers: { location: 'http://10.0.0.1/' } } : 200));
    const sub = subscribe(admin.clientId, r.url);
    const item = await stockIn(admin.bearer); // item.created, stock.received
    await until(() => r.received.length >= 4, 15_000, 'the retries and the second event');
    // The receiver answers before the dispatcher records the attempt: wait for the fourth row.
    const deliveries = await recordedDeliveries(sub.id, 4);
    const events = r.received.map((g) => verified(sub.secret, g));
    expect(events.map((e) => e.type)).toEqual(['item.created', 'item.created', 'item.created', 'stock.received']);
    expect(new Set(events.slice(0, 3).map((e) => e.id)).size).toBe(1);
    expect(events[3].data.itemID).toBe(item.shortID);

    expect(deliveries.map((d) => [d.seq, d.attempt, d.status])).toEqual([
      [events[3].seq, 1, 200],
      [events[0].seq, 3, 200],
      [events[0].seq, 2, 302],
      [events[0].seq, 1, 500],
    ]);
    expect(deliveries[3].error).toBe('HTTP 500');
    expect(deliveries[3].nextTry).not.toBeNull();
    // The pause of WEBHOOK_RETRY_SECONDS (1 s here, with jitter) was kept.
    expect(Date.parse(deliveries[2].attemptedAt) - Date.parse(deliveries[3].attemptedAt)).toBeGreaterThanOrEqual(700);
    expect(deliveries[0].nextTry).toBeNull();
    await webhooks().delete(String(sub.id));
  });

  it('records an event as failed once the retries are used up, and moves on to the next', async () => {
    const r = await receiver((n, got) => (JSON.parse(got.body).type === 'item.created' ? 503 : 204));
    const sub = subscribe(admin.clientId, r.url);
    await stockIn(admin.bearer);
    // One attempt and the two retries of WEBHOOK_RETRY_SECONDS=1,1, then the next event.
    await until(() => r.received.length >= 4, 15_000, 'three attempts and the next event');
    const deliveries = await recordedDeliveries(sub.id, 4);
    expect(deliveries.map((d) => [d.attempt, d.status])).toEqual([
      [1, 204],
      [3, 503],
      [2, 503],
      [1, 503],
    ]);
    expect(deliveries[1].error).toMatch(/no retries left: failed/);
    expect(deliveries[1].nextTry).toBeNull();
    const metrics = await request(t.http).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/webhook_deliveries_total\{result="failed"\} [1-9]/);
    expect(metrics.text).toMatch(/webhook_deliveries_total\{result="retry"\} [1-9]/);
    expect(metrics.text).toMatch(/webhook_deliveries_total\{result="delivered"\} [1-9]/);
    expect(metrics.text).toMatch(/^webhook_oldest_undelivered_seconds \d/m);
    await webhooks().delete(String(sub.id));
  });

  it("stops a disabled client's deliveries, and a deleted subscription's at once", async () => {
    const other = await givenClient(t, { warehouses: [1] });
    const r1 = await receiver();
    const r2 = await receiver();
    subscribe(other.clientId, r1.url, 'item.*');
    const gone = subscribe(admin.clientId, r2.url, 'item.*');
    await givenItem(t, admin.bearer);
    await until(() => r1.received.length === 1 && r2.received.length === 1);

    await t.app.get(AdminService).setDisabled(other.clientId, true);
    expect((await cliAsync(t.database.url, ['webhook:delete', '--id', String(gone.id)])).json()).toEqual({ id: gone.id, deleted: true });
    await sleep(1200); // ACCOUNT_CACHE_SECONDS=1
    await givenItem(t, admin.bearer);
    await sleep(2500);
    expect(r1.received).toHaveLength(1);
    expect(r2.received).toHaveLength(1);
  });

  it('refuses at delivery a URL that resolves to loopback once private targets are no longer allowed', async () => {
    const r = await receiver();
    const sub = subscribe(admin.clientId, r.url.replace('127.0.0.1', 'localhost'), 'item.*');
    const config = t.config as { webhookAllowPrivate: boolean };
    config.webhookAllowPrivate = false;
    try {
      await givenItem(t, admin.bearer);
      await until(async () => (await webhooks().deliveries(String(sub.id))).deliveries.length > 0);
      const [attempt] = (await webhooks().deliveries(String(sub.id))).deliveries;
      expect(attempt).toMatchObject({ attempt: 1, status: null });
      expect(attempt.error).toMatch(/^refused: the URL resolves to (127\.0\.0\.1|::1)/);
      expect(r.received).toHaveLength(0);
    } finally {
      config.webhookAllowPrivate = true;
      await webhooks().delete(String(sub.id));
    }
  });

  it('with two instances on one database, delivers each event once, in seq order (one instance at a time holds the subscription)', async () => {
    const second = await startTestApp({ database: t.database, config: { webhookRetrySeconds: [1, 1], accountCacheSeconds: 1 } });
    try {
      const r = await receiver();
      const sub = subscribe(admin.clientId, r.url, 'item.created');
      const created: string[] = [];
      for (let i = 0; i < 12; i++) {
        const via = i % 2 ? second : t;
        const res = await request(via.http).post('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: `TWO-${process.pid}-${i}`, description: 'two instances' });
        expect(res.status).toBe(201);
        created.push(res.body.shortID);
      }
      await until(() => r.received.length >= 12, 15_000, 'twelve deliveries');
      await sleep(1500);
      const got = r.received.map((g) => verified(sub.secret, g));
      expect(got.map((e) => (e.data as { shortID: string }).shortID)).toEqual(created);
      expect(got.map((e) => e.seq)).toEqual([...got.map((e) => e.seq)].sort((a, b) => a - b));
      expect(await recordedDeliveries(sub.id, 12)).toHaveLength(12);
      await webhooks().delete(String(sub.id));
    } finally {
      await second.close();
    }
  });

  it('webhook:list shows the subscriptions, never their secrets', async () => {
    const sub = subscribe(admin.clientId, 'http://127.0.0.1:9/x', 'stock.*,item.created');
    const all = cli(t.database.url, ['webhook:list']);
    expect(all.status).toBe(0);
    expect(all.stdout).not.toContain(sub.secret);
    expect(all.stdout).not.toContain('whsec_');
    const mine = cli(t.database.url, ['webhook:list', '--client-id', admin.clientId]).json() as { webhooks: Array<Record<string, unknown>> };
    expect(mine.webhooks).toContainEqual({ id: sub.id, clientId: admin.clientId, url: 'http://127.0.0.1:9/x', types: ['stock.*', 'item.created'], created: expect.any(String) });
    expect(cli(t.database.url, ['webhook:list', '--client-id', 'nobody']).json()).toEqual({ webhooks: [] });
    expect((await cliAsync(t.database.url, ['webhook:delete', '--id', String(sub.id)])).status).toBe(0);
  });

  describe('refuses bad arguments with an error: line on stderr and a non-zero exit, creating nothing', () => {
    /**
     * A command line the CLI cannot take (a missing or unknown flag) exits 2 with the error and the
     * command's usage line; input the command refuses exits 1 with the error line alone.
     */
    const refused = (args: string[], message: RegExp) => {
      const r = cli(t.database.url, args);
      const lines = r.stderr.trim().split('\n');
      expect({ status: r.status === 0 ? 0 : 'non-zero', stdout: r.stdout }).toEqual({ status: 'non-zero', stdout: '' });
      expect(lines[0]).toMatch(/^error: /);
      expect(lines[0]).toMatch(message);
      if (r.status === 2) expect({ lines: lines.length, usage: lines[1] }).toEqual({ lines: 2, usage: expect.stringMatching(new RegExp(`^usage: npm run --silent cli -- ${args[0]} `)) });
      else expect({ status: r.status, lines: lines.length }).toEqual({ status: 1, lines: 1 });
    };
    const count = async () => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM webhook_subscription'))[0].n);

    it('arguments', async () => {
      const before = await count();
      refused(['webhook:create', '--client-id', admin.clientId], /needs --url/);
      refused(['webhook:create', '--url', 'https://example.com/'], /needs --client-id/);
      refused(['webhook:create', '--client-id', 'nobody', '--url', 'https://93.184.215.14/'], /unknown client "nobody"/);
      refused(['webhook:create', '--client-id', admin.clientId, '--url', 'https://93.184.215.14/', '--types', 'stock.sold'], /--types must be a comma-separated list/);
      refused(['webhook:create', '--client-id', admin.clientId, '--url', 'https://93.184.215.14/', '--types', ''], /--types must be/);
      refused(['webhook:create', '--client-id', admin.clientId, '--url', 'not a url'], /--url must be an absolute/);
      refused(['webhook:create', '--client-id', admin.clientId, '--url', 'ftp://93.184.215.14/'], /--url must use http or https/);
      refused(['webhook:create', '--client-id', admin.clientId, '--url', 'https://user:pw@93.184.215.14/'], /must not carry a user name/);
      refused(['webhook:create', '--client-id', admin.clientId, '--url', 'https://93.184.215.14/', '--bogus', 'x'], /Unknown option '--bogus'/);
      refused(['webhook:delete', '--id', 'one'], /--id must be a whole number/);
      refused(['webhook:delete', '--id', '999999'], /unknown webhook 999999/);
      refused(['webhook:deliveries', '--id', '0'], /--id must be a whole number/);
      refused(['webhook:deliveries'], /needs --id/);
      expect(await count()).toBe(before);
    });

    it.each([
      ['loopback', 'http://127.0.0.1:8080/'],
      ['10/8', 'http://10.1.2.3/'],
      ['172.16/12', 'http://172.20.0.1/'],
      ['192.168/16', 'https://192.168.1.10/'],
      ['the metadata address', 'http://169.254.169.254/latest/meta-data/'],
      ['IPv6 loopback', 'http://[::1]/'],
      ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]/'],
      ['a decimal IPv4', 'http://2130706433/'],
      ['an octal IPv4', 'http://0177.0.0.1/'],
      ['a hostname resolving to loopback', 'http://localhost:3000/'],
      // IANA's special-purpose blocks and IPv6 forms that carry an IPv4 address (EXTENSIONS "Events" → "Webhooks").
      ['IPv4-compatible loopback', 'http://[::127.0.0.1]:4150/'],
      ['IPv4-compatible metadata address', 'http://[::a9fe:a9fe]/'],
      ['IPv4-compatible, deprecated', 'http://[::1.2.3.4]/'],
      ['IPv6 site-local', 'http://[fec0::1]/'],
      ['IPv6 discard-only', 'http://[100::1]/'],
      ['benchmarking', 'http://198.18.0.1/'],
      ['NAT64 of loopback', 'http://[64:ff9b::7f00:1]/'],
      ['6to4 of a private address', 'http://[2002:c0a8:101::1]/'],
      ['documentation', 'http://[2001:db8::1]/'],
    ])('SSRF: %s (%s)', async (_what, url) => {
      const before = await count();
      refused(['webhook:create', '--client-id', admin.clientId, '--url', url], /resolves to .*non-public address/);
      expect(await count()).toBe(before);
    });
  });
});
