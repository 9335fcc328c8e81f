import { AdminService } from '../src/auth/admin.service.js';
import { WebhookService } from '../src/events/webhooks.service.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { eventsAfter, lastSeq } from './support/events.js';
import { type Receiver, startHangingReceiver, startReceiver, until } from './support/webhooks.js';

/**
 * Subscriptions are independent (EXTENSIONS "Events" → "Webhooks"): a
 * receiver that never answers delays only its own subscription. With 200
 * subscriptions hanging on one, a healthy subscription's events are first
 * attempted within 5 s of their commit, and a retry goes out close to the
 * `nextTry` its failed attempt recorded.
 */
const HANGING = 200;
/** More than the relay looks at at once (SUBSCRIPTIONS_PER_LOOK, 200). */
const SET_ASIDE = 250;

describe(`webhook subscriptions are independent (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let stuck: TestClient;
  let healthy: TestClient;
  let hanging: Awaited<ReturnType<typeof startHangingReceiver>>;
  const receivers: Receiver[] = [];
  const webhooks = () => t.app.get(WebhookService);

  beforeAll(async () => {
    t = await startTestApp({ config: { webhookRetrySeconds: [1, 1, 1] } });
    stuck = await givenClient(t, { warehouses: [1] });
    healthy = await givenClient(t, { warehouses: [1] });
    hanging = await startHangingReceiver();
    for (let i = 0; i < HANGING; i++) await webhooks().create({ clientId: stuck.clientId, url: hanging.url, types: 'item.*' });
  });
  afterAll(async () => {
    await hanging.close();
    await t.close();
    for (const r of receivers) await r.close();
  });

  it(`delivers to a healthy subscription within 5 s of the commit while ${HANGING} others hang, and retries close to nextTry`, async () => {
    // Answers 500 to its first request, then 204: one retry, whose timing is checked.
    const arrivals: number[] = [];
    const ok = await startReceiver(() => (arrivals.push(Date.now()), arrivals.length === 1 ? 500 : 204));
    receivers.push(ok);
    const sub = await webhooks().create({ clientId: healthy.clientId, url: ok.url, types: 'item.*' });

    // The hanging subscriptions get their first event and hold the relay's connections for ATTEMPT_MS (10 s).
    const from = await lastSeq(t);
    await givenItem(t, healthy.bearer);
    await until(() => hanging.requests() >= 20, 10_000, 'hanging subscriptions attempted');

    // A commit while all of them hang: the healthy subscription's first attempt comes within 5 s of it.
    const committed = Date.now();
    await givenItem(t, healthy.bearer);
    const [first, second] = await eventsAfter(t, healthy.bearer, from);
    expect([first.type, second.type]).toEqual(['item.created', 'item.created']);
    await until(() => ok.received.some((r) => JSON.parse(r.body).id === second.id), 5_000, "the healthy subscription's event within 5 s");
    expect(Date.now() - committed).toBeLessThan(5_000);
    // Meanwhile every hanging subscription was attempted too (each on its own connection).
    await until(() => hanging.requests() >= HANGING, 5_000, 'every hanging subscription attempted');

    // Its first event failed once: the retry went out within a second and a half of the recorded nextTry (1 s ± 20 %).
    const attempts = (await webhooks().deliveries(String(sub.id))).deliveries.filter((d) => d.eventId === first.id);
    const failed = attempts.find((d) => d.status === 500);
    expect(failed?.nextTry).toEqual(expect.any(String));
    expect(arrivals.length).toBeGreaterThanOrEqual(2);
    expect(arrivals[1] - Date.parse(failed!.nextTry!)).toBeLessThan(1_500);
    expect(ok.received.map((r) => JSON.parse(r.body).id)).toEqual([first.id, first.id, second.id]);
  }, 90_000);

  it(`delivers to a healthy subscription while ${SET_ASIDE} subscriptions of a disabled client wait to be looked at`, async () => {
    // A client disabled after subscribing: its subscriptions are due but cannot be served. They must not fill
    // the relay's looks for work (SUBSCRIPTIONS_PER_LOOK at a time) and starve a healthy one.
    const gone = await givenClient(t, { warehouses: [1] });
    for (let i = 0; i < SET_ASIDE; i++) await webhooks().create({ clientId: gone.clientId, url: hanging.url, types: 'item.*' });
    await t.app.get(AdminService).setDisabled(gone.clientId, true);
    const ok = await startReceiver(() => 204);
    receivers.push(ok);
    await webhooks().create({ clientId: healthy.clientId, url: ok.url, types: 'item.*' });
    const before = hanging.requests();
    const from = await lastSeq(t);
    const committed = Date.now();
    await givenItem(t, healthy.bearer);
    const [created] = await eventsAfter(t, healthy.bearer, from);
    await until(() => ok.received.some((r) => JSON.parse(r.body).id === created.id), 5_000, "the healthy subscription's event within 5 s");
    expect(Date.now() - committed).toBeLessThan(5_000);
    // Nothing went to the disabled client's receiver.
    expect(hanging.requests()).toBe(before);
  }, 90_000);
});

