import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from './app.factory.js';
import { type ServiceProcess, startService } from './support/service-process.js';
import { cli, until } from './support/webhooks.js';

/**
 * The relay in the built service (dist/, as production runs it): killed with
 * SIGKILL in the middle of a delivery, nothing committed is lost to the
 * receiver once the service runs again (the killed instance's lease lapses);
 * stopped with SIGTERM in the middle of one, it ends at once and cleanly.
 */
describe(`webhook relay in the service process (${testDatabaseKind()})`, () => {
  let db: TestDatabase;
  let service: ServiceProcess | undefined;
  let server: Server;
  let receiverUrl: string;
  /** webhook-id of every request the receiver got, in arrival order. */
  const received: string[] = [];
  let delayMs = 150;

  beforeAll(async () => {
    db = await createTestDatabase();
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        setTimeout(() => res.writeHead(204).end(), delayMs).unref();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    await service?.kill('SIGKILL');
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await db.drop();
  });

  const env = () => ({ DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SECONDS: '1,1,1,1,1' });

  async function tokenOf(s: ServiceProcess): Promise<string> {
    const line = s.output().split('\n').find((l) => l.includes('"bootstrap"'));
    if (!line) throw new Error(`no bootstrap line: ${s.output()}`);
    const { clientId, clientSecret } = (JSON.parse(line) as { bootstrap: { clientId: string; clientSecret: string } }).bootstrap;
    const res = await fetch(`${s.url}/api/v1/Token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  async function feedIds(s: ServiceProcess, token: string, after: number): Promise<string[]> {
    const res = await fetch(`${s.url}/api/v1/Events?after=${after}&limit=1000`, { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as { value: Array<{ id: string }> }).value.map((e) => e.id);
  }

  it('delivers every event at least once after a SIGKILL in the middle of a delivery, and a SIGTERM ends it cleanly', async () => {
    service = await startService(env());
    const token = await tokenOf(service);
    const clientId = (JSON.parse(service.output().split('\n').find((l) => l.includes('"bootstrap"'))!) as { bootstrap: { clientId: string } }).bootstrap.clientId;
    const sub = cli(db.url, ['webhook:create', '--client-id', clientId, '--url', receiverUrl], { WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(sub.stderr).toBe('');
    const { id } = sub.json() as { id: number };

    const base = service.url;
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${base}/api/v1/Item`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ shortID: `KILL-${i}`, description: 'killed mid-delivery' }),
      });
      expect(res.status).toBe(201);
    }
    // The sixth request is being answered (150 ms) when the instance dies.
    await until(() => received.length >= 6, 20_000, 'six deliveries');
    const killed = await service.kill('SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const beforeRestart = received.length;
    expect(beforeRestart).toBeLessThan(30);

    service = await startService(env());
    const ids = await feedIds(service, token, 0);
    expect(ids).toHaveLength(30);
    // The killed instance's lease lapses (30 s), then the new instance carries on from the last recorded attempt.
    await until(() => ids.every((e) => received.includes(e)), 90_000, 'every event at the receiver');
    // At least once, in seq order: the first arrival of each event follows the feed's order.
    const firsts = [...new Set(received)];
    expect(firsts).toEqual(ids);
    // Repeated at most: the deliveries not yet recorded at the kill (recorded together every 500 ms: at 150 ms an answer,
    // at most four) and the one in flight.
    expect(received.length - ids.length).toBeLessThanOrEqual(5);
    // The last answer is recorded once it has come back (the receiver counts a request when it arrives).
    const delivered = () => (cli(db.url, ['webhook:deliveries', '--id', String(id)]).json() as { deliveries: Array<{ status: number | null }> }).deliveries.filter((d) => d.status === 204).length;
    await until(() => delivered() >= 30, 10_000, 'every delivery recorded');

    // SIGTERM while the receiver holds a delivery for 20 s: the relay cuts it off and the service ends with 0, long before.
    delayMs = 20_000;
    const count = received.length;
    const res = await fetch(`${service.url}/api/v1/Item`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ shortID: 'TERM-1', description: 'stopped mid-delivery' }),
    });
    expect(res.status).toBe(201);
    await until(() => received.length > count, 10_000, 'the delivery in flight');
    const started = Date.now();
    const stopped = await service.kill('SIGTERM');
    expect(stopped).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(8_000);
    service = undefined;
  }, 180_000);
});
