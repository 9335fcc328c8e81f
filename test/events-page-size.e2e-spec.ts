import { SecurityId } from '../src/auth/security-id.js';
import { MAX_PAGE_DATA } from '../src/events/events.service.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { feed, type FedEvent, lastSeq } from './support/events.js';
import { expectLedgerConsistent, hold, release } from './support/inventory.js';
import { givenManyLots } from './support/many-lots.js';

/**
 * EXTENSIONS "Events": a feed page also stops once its events' `data` passes
 * 1 MiB, so that a read-only client asking for 1,000 large events at a time
 * cannot make a page cost tens of megabytes.
 */
describe(`Events: pages bounded by size (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  let reader: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1] });
    reader = await givenClient(t, { permissions: [SecurityId.ItemMasterList], warehouses: [1] });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  const bytes = (e: FedEvent) => Buffer.byteLength(JSON.stringify(e.data));

  it('stops a page of limit=1000 past 1 MiB of data, with hasMore; following next walks every event once, in order', async () => {
    // 2,000 one-unit lots held and released whole: every event lists 2,000 lots, about 85 KB.
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenManyLots(t, admin.bearer, admin.clientId, itemID, 2_000, 1);
    const from = await lastSeq(t);
    for (let i = 0; i < 15; i++) {
      expect((await hold(t, admin.bearer, { itemID })).status).toBe(200);
      expect((await release(t, admin.bearer, { itemID })).status).toBe(200);
    }
    const seqs = Array.from({ length: 30 }, (_, i) => from + 1 + i);

    const pages: FedEvent[][] = [];
    for (let after = from; ; ) {
      const res = await feed(t, reader.bearer, { after, limit: 1000, types: 'stock.held,stock.released' });
      expect(res.status).toBe(200);
      const value: FedEvent[] = res.body.value;
      pages.push(value);
      const sizes = value.map(bytes);
      const total = sizes.reduce((a, b) => a + b, 0);
      if (res.body.hasMore) {
        // Stopped at the event that took it past 1 MiB: without that one it was within.
        expect(total).toBeGreaterThan(MAX_PAGE_DATA);
        expect(total - sizes[sizes.length - 1]).toBeLessThanOrEqual(MAX_PAGE_DATA);
      } else {
        expect(total - sizes[sizes.length - 1]).toBeLessThanOrEqual(MAX_PAGE_DATA);
      }
      expect(res.body.next).toBe(value[value.length - 1].seq);
      after = res.body.next;
      if (!res.body.hasMore) break;
      expect(pages.length).toBeLessThan(30);
    }
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages[0].length).toBeLessThan(30);
    expect(pages.flat().map((e) => e.seq)).toEqual(seqs);
    expect(pages.flat().every((e) => (e.data.lots as unknown[]).length === 2_000)).toBe(true);
  });

  it('always holds at least one event, however large', async () => {
    // One event over 1 MiB: 30,000 lots held at once.
    const { shortID: itemID } = await givenItem(t, admin.bearer);
    await givenManyLots(t, admin.bearer, admin.clientId, itemID, 30_000, 1);
    const from = await lastSeq(t);
    expect((await hold(t, admin.bearer, { itemID })).status).toBe(200);
    expect((await release(t, admin.bearer, { itemID })).status).toBe(200);
    const first = await feed(t, reader.bearer, { after: from, limit: 1000 });
    expect(first.body.value.map((e: FedEvent) => e.type)).toEqual(['stock.held']);
    expect(bytes(first.body.value[0])).toBeGreaterThan(MAX_PAGE_DATA);
    expect(first.body).toMatchObject({ next: from + 1, hasMore: true });
    const second = await feed(t, reader.bearer, { after: from + 1, limit: 1000 });
    expect(second.body.value.map((e: FedEvent) => e.type)).toEqual(['stock.released']);
    expect(second.body).toMatchObject({ next: from + 2, hasMore: false });
  });
});
