import fc from 'fast-check';
import { WebhookSubscription } from '../src/events/events.entities.js';
import { WebhookInputError } from '../src/events/webhook-target.js';
import { WebhookService } from '../src/events/webhooks.service.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';

/**
 * The webhook commands of the admin CLI, fuzzed where the CLI hands its
 * arguments over (WebhookService, behind `webhook:create`, `webhook:list`,
 * `webhook:delete`, `webhook:deliveries`): whatever strings arrive, each call
 * either succeeds or is refused with a WebhookInputError (one line on stderr,
 * exit 1), never another failure, and a refused create writes nothing. Runs
 * with the SSRF rule on (the service's default). FUZZ_SEED replays a run.
 */
describe(`webhook CLI arguments, fuzzed (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let client: TestClient;
  let webhooks: WebhookService;
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  beforeAll(async () => {
    t = await startTestApp({ config: { webhookAllowPrivate: false } });
    client = await givenClient(t, { warehouses: [1] });
    webhooks = t.app.get(WebhookService);
    process.stderr.write(`webhook CLI fuzz seed: ${seed}\n`);
  });
  afterAll(() => t.close());

  /** Succeeds, or a WebhookInputError with a one-line message; anything else fails the property. */
  const refusedOrDone = async (call: () => Promise<unknown>): Promise<'done' | 'refused'> => {
    try {
      await call();
      return 'done';
    } catch (error) {
      if (!(error instanceof WebhookInputError)) throw new Error(`not a refusal: ${String(error)}`);
      expect(error.message).not.toContain('\n');
      return 'refused';
    }
  };
  const text = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('', ' ', '0', '-1', '1e3', '0x10', '999999999999', 'NaN', "1' OR '1'='1", '%00', '\u0000', 'stock.*', 'item.*', 'stock.*,item.created', '*'),
  );
  const url = fc.oneof(
    text,
    // IP literals only: a random host name would be looked up in DNS, which this machine may not answer.
    fc.tuple(fc.constantFrom('http://', 'https://', 'HTTP://'), fc.ipV4(), fc.constantFrom('', '/', '/hooks', ':8080/x?y=1')).map(([scheme, ip, rest]) => scheme + ip + rest),
    fc.constantFrom('http://127.0.0.1/', 'http://2130706433/', 'http://0177.0.0.1/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://169.254.169.254/', 'http://user:pw@example.com/', 'ftp://example.com/', 'http://localhost/'),
  );

  it('webhook:create refuses bad arguments cleanly and writes nothing for them', async () => {
    const outcomes = { done: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(fc.oneof(text, fc.constant(client.clientId)), url, fc.option(text, { nil: undefined }), async (clientId, target, types) => {
        const before = await t.dataSource.getRepository(WebhookSubscription).count();
        const outcome = await refusedOrDone(() => webhooks.create({ clientId, url: target, types }));
        outcomes[outcome]++;
        const after = await t.dataSource.getRepository(WebhookSubscription).count();
        expect(after - before).toBe(outcome === 'done' ? 1 : 0);
      }),
      { numRuns: 150, seed },
    );
    // Random arguments are refused, most of them; whether one makes a subscription (a known client, a
    // public address, types that parse) depends on the seed, so how many did is told, not required.
    expect(outcomes.refused).toBeGreaterThan(0);
    process.stderr.write(`webhook CLI fuzz: ${outcomes.done} of 150 random creates made a subscription\n`);
    // Good arguments still make one, through the same check of the count.
    const before = await t.dataSource.getRepository(WebhookSubscription).count();
    expect(await refusedOrDone(() => webhooks.create({ clientId: client.clientId, url: 'http://93.184.216.34/hooks', types: 'stock.*,item.created' }))).toBe('done');
    expect((await t.dataSource.getRepository(WebhookSubscription).count()) - before).toBe(1);
  });

  it('webhook:list, webhook:delete and webhook:deliveries refuse bad arguments cleanly', async () => {
    await fc.assert(
      fc.asyncProperty(text, async (raw) => {
        await refusedOrDone(() => webhooks.list(raw));
        await refusedOrDone(() => webhooks.deliveries(raw));
        await refusedOrDone(() => webhooks.delete(raw));
      }),
      { numRuns: 150, seed },
    );
  });
});
