import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from './app.factory.js';
import { type ServiceProcess, startService } from './support/service-process.js';
import { cli, sleep, until } from './support/webhooks.js';

/**
 * Several instances of the built service on one database, many writers at
 * once, every receiver answering 2xx, nothing killed or stopped: each event
 * reaches each subscription exactly once and in seq order (EXTENSIONS
 * "Events" → "Webhooks"), whichever instance delivers it.
 */
const INSTANCES = 3;
const WRITERS = 48;
const WRITES = 600;
const SUBSCRIPTIONS = 20;

describe(`webhook deliveries with several instances and no fault (${testDatabaseKind()})`, () => {
  let db: TestDatabase;
  const services: ServiceProcess[] = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.kill('SIGTERM')));
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await db.drop();
  });

  /** A receiver answering 204 at once; the seq and id of every request it got, in arrival order. */
  async function receiver(): Promise<{ url: string; got: Array<{ id: string; seq: number }> }> {
    const got: Array<{ id: string; seq: number }> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ id: String(req.headers['webhook-id']), seq: (JSON.parse(Buffer.concat(chunks).toString()) as { seq: number }).seq });
        res.writeHead(204).end();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got };
  }

  it('delivers every event once to each subscription, in strictly increasing seq', async () => {
    // No account cache: every look reads the client again, which widens the window between a look and its claim.
    const env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info', ACCOUNT_CACHE_SECONDS: '0' };
    services.push(await startService(env));
    services.push(...(await Promise.all(Array.from({ length: INSTANCES - 1 }, () => startService(env)))));
    const line = services[0].output().split('\n').find((l) => l.includes('"bootstrap"'))!;
    const { clientId, clientSecret } = (JSON.parse(line) as { bootstrap: { clientId: string; clientSecret: string } }).bootstrap;
    const tokenRes = await fetch(`${services[0].url}/api/v1/Token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;

    const receivers = await Promise.all(Array.from({ length: SUBSCRIPTIONS }, receiver));
    for (const r of receivers) {
      const made = cli(db.url, ['webhook:create', '--client-id', clientId, '--url', r.url], { WEBHOOK_ALLOW_PRIVATE: 'true' });
      expect(made.stderr).toBe('');
    }

    let next = 0;
    const writer = async () => {
      while (next < WRITES) {
        const i = next++;
        const res = await fetch(`${services[i % INSTANCES].url}/api/v1/Item`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ shortID: `INST-${i}`, description: 'several instances' }),
        });
        expect(res.status).toBe(201);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));

    // The feed, once the last commits have their seqs.
    let feed: string[] = [];
    await until(async () => {
      feed = [];
      for (let after = 0, more = true; more; ) {
        const res = await fetch(`${services[0].url}/api/v1/Events?after=${after}&limit=1000`, { headers: { authorization: `Bearer ${token}` } });
        const page = (await res.json()) as { value: Array<{ id: string }>; next: number; hasMore: boolean };
        feed.push(...page.value.map((e) => e.id));
        ({ next: after, hasMore: more } = page);
      }
      return feed.length >= WRITES;
    }, 10_000, 'every event in the feed');
    for (const r of receivers) await until(() => new Set(r.got.map((g) => g.id)).size >= WRITES, 30_000, 'every event at each receiver');
    await sleep(1500); // a repeat would come within a turn or two

    for (const r of receivers) {
      const ids = r.got.map((g) => g.id);
      const repeated = ids.filter((id, at) => ids.indexOf(id) !== at);
      const backwards = r.got.filter((g, at) => at > 0 && g.seq <= r.got[at - 1].seq).map((g) => g.seq);
      expect({ received: ids.length, repeated, backwards }).toEqual({ received: WRITES, repeated: [], backwards: [] });
      expect(ids).toEqual(feed);
    }
  }, 120_000);
});
