import { get as httpGet, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { SecurityId } from '../src/auth/security-id.js';
import type { ItemResponseDto } from '../src/catalog/item.responses.js';
import { CATEGORY_PIECE_ROWS } from '../src/catalog/items.service.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { type BulkItem, insertItems, mixedCase } from './support/bulk-items.js';
import { givenItem } from './support/catalog.js';

/**
 * GET /Item?Category= is streamed (DECISIONS "Items"): the same answer as a
 * single JSON array, read from the database a piece at a time.
 */
const ITEM_FIELDS = ['partNo', 'shortID', 'description', 'category', 'subCategory', 'uOM', 'putUp', 'units', 'dfltOwner', 'created', 'modified', 'discontinued', 'createdBy'];
const CATEGORY = 4401;
const NEIGHBOUR = 4402;
const BIG_CATEGORY = 4500;
/** Large enough (with long descriptions, about 17 MB of JSON) that socket buffers cannot take it all at once. */
const BIG = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small deterministic generator, so that a failure can be reproduced. */
function seeded(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe(`GET /Item?Category= streamed (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let reader: TestClient;
  let port: number;
  const logLines: Array<Record<string, unknown>> = [];
  const loggedAs = (msg: string) => logLines.filter((l) => l.msg === msg);

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    t = await startTestApp({ logger: pino({ level: 'info' }, sink) });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    reader = await givenClient(t, { permissions: [SecurityId.ItemMasterList] });
  });
  afterAll(() => t.close());

  const list = (category: number) => request(t.http).get(`/api/v1/Item?Category=${category}`).set('Authorization', reader.bearer);

  /** GET over a plain socket, paused after the first bytes of the body arrived. */
  const openPaused = (category: number) =>
    new Promise<{ res: IncomingMessage; first: string }>((resolve, reject) => {
      const req = httpGet({ host: '127.0.0.1', port, path: `/api/v1/Item?Category=${category}`, headers: { Authorization: reader.bearer } }, (res) => {
        res.once('data', (chunk: Buffer) => {
          res.pause();
          resolve({ res, first: chunk.toString() });
        });
      });
      req.on('error', reject);
    });

  it('sends a category larger than one read whole: active items once each, by case-insensitive shortID, every field', async () => {
    const random = seeded(7);
    const active = 2 * CATEGORY_PIECE_ROWS + 7;
    // Mixed in among them, and not in the list: discontinued items of the category, and another category's.
    const roles = [...Array<string>(active).fill('active'), ...Array<string>(60).fill('discontinued'), ...Array<string>(20).fill('neighbour')];
    roles.sort(() => random() - 0.5);
    const keys = new Set<string>();
    const items: BulkItem[] = [];
    // Keys mix `_` (between upper and lower case letters in byte order) with letters in random case.
    while (items.length < roles.length) {
      const key = Array.from({ length: 3 + Math.floor(random() * 6) }, () => 'ab_xz-09'[Math.floor(random() * 8)]).join('');
      if (keys.has(key)) continue;
      keys.add(key);
      const n = items.length;
      items.push({
        shortID: mixedCase(key, random),
        description: `Part ${n} "quoted" \\ ünïcode`,
        category: roles[n] === 'neighbour' ? NEIGHBOUR : CATEGORY,
        subCategory: n % 13,
        uOM: ['EA', 'KG', 'M'][n % 3],
        putUp: n % 2 ? 'Box' : '',
        units: Math.round(random() * 1e8) / 1e4,
        dfltOwner: n % 5,
        discontinued: roles[n] === 'discontinued',
        created: new Date(Date.UTC(2025, 0, 1) + n * 1001),
        modified: new Date(Date.UTC(2025, 6, 1) + n * 999),
      });
    }
    await insertItems(t.dataSource, items);
    // One made through the API, too: its POST answer is what the list must show.
    const posted = await givenItem(t, (await givenClient(t)).bearer, { shortID: 'Zz-Posted', category: CATEGORY, units: 0.0001 });

    const res = await list(CATEGORY).set('X-Request-Id', 'stream-e2e-1');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toBe('stream-e2e-1');
    expect(res.headers['x-api-version']).toBe('v1');
    expect(res.headers['ratelimit-policy']).toMatch(/^"default";q=\d+;w=60$/);
    expect(res.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(res.headers['x-total-count']).toBeUndefined();
    // Byte for byte what one JSON.stringify of the array gives (as res.json did before).
    expect(res.text).toBe(JSON.stringify(res.body));

    const partNos = new Map<string, number>(
      (await t.dataSource.query('SELECT partNo, shortID FROM item')).map((r: { partNo: number; shortID: string }) => [r.shortID, Number(r.partNo)]),
    );
    const expected: ItemResponseDto[] = items
      .filter((i) => i.category === CATEGORY && !i.discontinued)
      .map((i) => ({
        partNo: partNos.get(i.shortID)!,
        shortID: i.shortID,
        description: i.description!,
        category: CATEGORY,
        subCategory: i.subCategory!,
        uOM: i.uOM!,
        putUp: i.putUp!,
        units: i.units!,
        dfltOwner: i.dfltOwner!,
        created: i.created!.toISOString(),
        modified: i.modified!.toISOString(),
        discontinued: false,
        createdBy: 'bulk',
      }));
    expected.push(posted);
    expected.sort((a, b) => (a.shortID.toLowerCase() < b.shortID.toLowerCase() ? -1 : 1));
    expect(expected.length).toBe(active + 1);
    expect(res.body.map((i: ItemResponseDto) => i.shortID)).toEqual(expected.map((i) => i.shortID));
    expect(res.body).toEqual(expected);
    for (const item of res.body) expect(Object.keys(item)).toEqual(ITEM_FIELDS);
  });

  it('answers an empty category with []', async () => {
    const res = await list(4499);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text).toBe('[]');
  });

  it('answers a refused request in the error shape, nothing streamed', async () => {
    const bad = await request(t.http).get('/api/v1/Item?Category=-1').set('Authorization', reader.bearer);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, error: 'validation_error' });
    const anonymous = await request(t.http).get(`/api/v1/Item?Category=${CATEGORY}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ statusCode: 401, error: 'unauthorized', details: null });
  });

  describe(`a category of ${BIG.toLocaleString('en')} items`, () => {
    beforeAll(async () => {
      const long = 'x'.repeat(240);
      await insertItems(
        t.dataSource,
        Array.from({ length: BIG }, (_, n) => ({ shortID: `BIG-${String((n * 7919) % BIG).padStart(6, '0')}`, category: BIG_CATEGORY, description: `${long}${n}`, putUp: 'p'.repeat(100) })),
      );
    });

    it('is read whole, in order', async () => {
      const res = await list(BIG_CATEGORY);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(BIG);
      expect(res.body.every((item: ItemResponseDto, i: number) => item.shortID === `BIG-${String(i).padStart(6, '0')}`)).toBe(true);
    });

    it('stops reading while the client does not read, and when it goes away; no database connection stays taken', async () => {
      // A client that stops reading: the service waits for it rather than reading on into memory.
      const stalled = await openPaused(BIG_CATEGORY);
      await sleep(1500);
      stalled.res.destroy();
      // More clients that leave than the MySQL pool has connections.
      for (let i = 0; i < 12; i++) (await openPaused(BIG_CATEGORY)).res.destroy();
      const until = Date.now() + 10_000;
      const abandoned = () => loggedAs('list response closed before its end: the client went away');
      while (abandoned().length < 13 && Date.now() < until) await sleep(50);
      expect(abandoned()).toHaveLength(13);
      // Kernel socket buffers take a few MB; the rest of the 17 MB was never read.
      expect(abandoned()[0].rows).toBeLessThan(BIG / 2);
      for (const line of abandoned()) expect(line.rows).toBeLessThan(BIG);

      // Everything still served, more requests at once than the pool has connections.
      const answers = await Promise.all([
        ...Array.from({ length: 16 }, () => list(CATEGORY)),
        ...Array.from({ length: 8 }, () => request(t.http).get('/health')),
      ]);
      expect(answers.map((r) => r.status)).toEqual(Array(24).fill(200));
      if (testDatabaseKind() === 'mysql') {
        // No connection of this database is left busy in a query (ours is the only one).
        const database = new URL(t.database.url).pathname.slice(1);
        const busy = await t.dataSource.query("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND COMMAND <> 'Sleep'", [database]);
        expect(busy).toHaveLength(1);
      }
    });

    it('cuts the connection, never ending a shorter array, when the database fails mid-stream', async () => {
      const before = loggedAs('list response failed').length;
      const { res, first } = await openPaused(BIG_CATEGORY);
      const rename = (from: string, to: string) =>
        t.dataSource.query(testDatabaseKind() === 'mysql' ? `RENAME TABLE \`${from}\` TO \`${to}\`` : `ALTER TABLE "${from}" RENAME TO "${to}"`);
      await rename('item', 'item_away');
      try {
        const outcome = await new Promise<{ complete: boolean; text: string }>((resolve) => {
          let text = first;
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('error', () => undefined);
          res.on('close', () => resolve({ complete: res.complete, text }));
          res.resume();
        });
        expect(res.statusCode).toBe(200);
        expect(outcome.complete).toBe(false);
        expect(outcome.text.startsWith('[{"partNo":')).toBe(true);
        expect(() => JSON.parse(outcome.text)).toThrow();
        const failed = loggedAs('list response failed').slice(before);
        expect(failed).toHaveLength(1);
        expect(failed[0]).toMatchObject({ level: 50, started: true });

        // Before the first byte, the same failure is an ordinary error answer.
        const early = await list(BIG_CATEGORY);
        expect(early.status).toBe(500);
        expect(early.body).toEqual({ statusCode: 500, error: 'internal_error', message: 'An unexpected error occurred.', details: null });
        expect(early.headers['x-request-id']).toBeDefined();
      } finally {
        await rename('item_away', 'item');
      }
      expect((await list(CATEGORY)).status).toBe(200);
    });
  });
});
