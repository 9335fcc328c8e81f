import request from 'supertest';
import { caseKey } from '../src/database/case-key.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';
import { expectLedgerConsistent, givenStock, issue, move } from './support/inventory.js';
import { cursorOf, follow, getPage, withParams, type WalkedPage } from './support/pages.js';

type Row = Record<string, unknown>;
type Value = string | number;

/** A list, how to read its sort values and key from an answer, and how to add rows to it and take rows out while it is walked. */
interface ListCase {
  path: string;
  label: string;
  who: () => TestClient;
  key: string;
  /** Public sort name → the value an answer shows for it (null: not shown, so its order is not checked). */
  sorts: Record<string, ((row: Row) => Value) | null>;
  insert: () => Promise<void>;
  /** Takes a row out of the list, returning its key, or undefined when none is left to take. */
  remove?: () => Promise<number | undefined>;
}

const DESCRIPTIONS = ['alpha', 'beta', 'gamma'];
const UNITS = [1, 2, 2.5];
const SPOTS = ['A', 'B', 'C'];

/**
 * Keyset paging through the Link header: every list, every sort, both
 * directions, walked by `next` from page 1 to the end while rows are inserted
 * and taken out: every row there from start to end is visited once, no row
 * twice, all in order; then walked back by `prev` to page 1. Cursors that are
 * not the list's own are a validation_error.
 */
describe(`list cursors (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let all: TestClient;
  let some: TestClient;
  let seq = 0;
  /** Lots in warehouse 1 as received, for moving them out whole. */
  const movable: Array<{ recNo: number; itemID: string; units: number }> = [];
  /** Items without stock, for discontinuing. */
  const unstocked: string[] = [];
  const stocked: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    all = await givenClient(t, { warehouses: [1, 2, 3] });
    some = await givenClient(t, { warehouses: [1, 2] });
    for (let i = 0; i < 18; i++) {
      const item = await givenItem(t, all.bearer, { shortID: `${i % 2 ? 'cur' : 'CUR'}-${String(i).padStart(2, '0')}`, description: DESCRIPTIONS[i % 3], category: i % 4, subCategory: i % 2 });
      if (i % 3 === 2) {
        unstocked.push(item.shortID);
        continue;
      }
      stocked.push(item.shortID);
      const wid = 1 + (i % 3);
      const units = UNITS[i % 3];
      const recNo = await givenStock(t, all.bearer, { itemID: item.shortID, units, wid, spot: SPOTS[i % 3] });
      if (wid === 1) movable.push({ recNo, itemID: item.shortID, units });
      await givenStock(t, all.bearer, { itemID: item.shortID, units: 2, wid: 2, spot: SPOTS[(i + 1) % 3] });
    }
    // Archived lots and lots split off, in the lists too.
    await issue(t, all.bearer, { itemID: stocked[0], units: 0.5, wid: 2 });
    await move(t, all.bearer, { itemID: stocked[1], units: 1, wid: 2, shipToWid: 3 });
  });
  afterAll(async () => {
    await expectLedgerConsistent(t);
    await t.close();
  });

  const newItem = async (fields: Record<string, unknown> = {}) => {
    const item = await givenItem(t, all.bearer, { description: DESCRIPTIONS[++seq % 3], category: seq % 4, ...fields });
    return item.shortID;
  };
  /** A new lot of an item already stocked (`fresh`: of a new item, so that it is a new stock-level row too). */
  const receive = async (wid: number, fresh = false) => {
    const itemID = fresh ? await newItem() : stocked[++seq % stocked.length];
    const units = UNITS[seq % 3];
    const recNo = await givenStock(t, all.bearer, { itemID, units, wid, spot: SPOTS[seq % 3] });
    if (wid === 1) movable.push({ recNo, itemID, units });
  };
  const num = (field: string) => (row: Row) => Number(row[field]);
  const str = (field: string) => (row: Row) => String(row[field]);
  const key = (field: string) => (row: Row) => caseKey(String(row[field]));
  const itemSorts = { shortID: key('shortID'), partNo: num('partNo'), description: str('description'), category: num('category'), subCategory: num('subCategory'), created: str('created'), modified: str('modified') };
  const lotSorts = { recNo: num('recNo'), received: str('received'), shortID: key('shortID'), partNo: num('partNo'), spot: str('spot'), units: num('units'), modified: null };
  const ledgerSorts = { id: num('id'), created: str('created'), partNo: num('partNo') };
  const stockSorts = { partNo: num('partNo'), shortID: key('shortID'), available: num('available'), inStock: num('inStock'), onHold: num('onHold') };

  const CASES: ListCase[] = [
    {
      path: '/api/v1/Item', label: 'active items', who: () => all, key: 'partNo', sorts: itemSorts, insert: async () => void unstocked.push(await newItem()),
      remove: async () => {
        const shortID = unstocked.shift();
        if (!shortID) return undefined;
        const res = await request(t.http).delete(`/api/v1/Item/${shortID}`).set('Authorization', all.bearer).expect(200);
        return (await request(t.http).get(`/api/v1/Item?key=${res.body.shortID}`).set('Authorization', all.bearer)).body.partNo;
      },
    },
    { path: '/api/v1/Item/All', label: 'all items', who: () => all, key: 'partNo', sorts: itemSorts, insert: async () => void unstocked.push(await newItem()) },
    { path: '/api/v1/Inventory', label: 'lots of all warehouses', who: () => all, key: 'recNo', sorts: lotSorts, insert: () => receive(1 + (seq % 3)) },
    {
      path: '/api/v1/Inventory/1', label: 'lots of warehouse 1', who: () => all, key: 'recNo', sorts: lotSorts, insert: () => receive(1),
      remove: async () => {
        const lot = movable.shift();
        if (!lot) return undefined;
        // Moved whole (its own units) to warehouse 2, keeping its spot: it leaves warehouse 1's list.
        const res = await move(t, all.bearer, { itemID: lot.itemID, units: lot.units, wid: 1, recno: lot.recNo, shipToWid: 2 });
        expect(res.body.lots).toEqual([expect.objectContaining({ recNo: lot.recNo, fromRecNo: lot.recNo })]);
        return lot.recNo;
      },
    },
    { path: '/api/v1/Inventory/StockLevels', label: 'stock levels of all warehouses', who: () => all, key: 'partNo', sorts: stockSorts, insert: () => receive(3, true) },
    { path: '/api/v1/Inventory/StockLevels', label: 'stock levels of some warehouses', who: () => some, key: 'partNo', sorts: stockSorts, insert: () => receive(2, true) },
    { path: '/api/v1/Inventory/StockLevels/1', label: 'stock levels of warehouse 1', who: () => all, key: 'partNo', sorts: stockSorts, insert: () => receive(1, true) },
    { path: '/api/v1/Inventory/Transactions', label: 'ledger of all warehouses', who: () => all, key: 'id', sorts: ledgerSorts, insert: () => receive(2) },
    { path: '/api/v1/Inventory/Transactions', label: 'ledger of some warehouses', who: () => some, key: 'id', sorts: ledgerSorts, insert: () => receive(1) },
  ];

  /** Every row of the list now, in its order, by page number. */
  const snapshot = async (c: ListCase, query: string): Promise<Row[]> => {
    const rows: Row[] = [];
    for (let n = 1; ; n++) {
      const page = await getPage(t, c.who().bearer, `${c.path}?${query}&page=${n}&pageSize=250`);
      rows.push(...page.rows);
      if (!page.hasMore) return rows;
    }
  };

  for (const c of CASES) {
    // The default order both ways; every sort column one way or the other, in turn.
    const orders = [['', 'ASC'], ['', 'DESC'], ...Object.keys(c.sorts).map((sort, i) => [sort, i % 2 ? 'DESC' : 'ASC'])];
    for (const [sort, direction] of orders) {
      const query = `${sort ? `sort=${sort}&` : ''}direction=${direction}`;
      it(`walks the ${c.label} (${c.path}?${query}) by next while rows come and go, and back by prev`, async () => {
        const bearer = c.who().bearer;
        const before = await snapshot(c, query);
        const removed = new Set<number>();
        const forward = await follow(t, bearer, `${c.path}?${query}&pageSize=8`, 'next', async (page) => {
          // Changes behind, at and ahead of the cursor on the first pages; the lists stay small.
          if (!page.hasMore || page.page > 2) return;
          await c.insert();
          const gone = await c.remove?.();
          if (gone !== undefined) removed.add(gone);
        });
        const visited = forward.flatMap((p) => p.rows);
        const keys = visited.map((r) => Number(r[c.key]));
        // No row twice; every row there from start to end once; pages numbered 1, 2, 3, … and the last says so.
        expect(keys.length).toBe(new Set(keys).size);
        const after = await snapshot(c, query);
        const stayed = before.map((r) => Number(r[c.key])).filter((k) => !removed.has(k) && after.some((a) => Number(a[c.key]) === k));
        expect(stayed.filter((k) => !keys.includes(k))).toEqual([]);
        expect(forward.map((p) => p.page)).toEqual(forward.map((_, i) => i + 1));
        expect(forward[forward.length - 1]).toMatchObject({ hasMore: false });
        expect(forward[forward.length - 1].links.next).toBeUndefined();
        // In order: the sort value, then the key, strictly in the direction asked.
        const value = sort ? c.sorts[sort] : defaultValue(c);
        if (value) expectOrdered(visited, value, c.key, direction);
        // Back by prev from the last page: the same rows as a walk of the list as it is now, page 1 last.
        const back = await follow(t, bearer, forward[forward.length - 1].url, 'prev');
        expect(back.flatMap((p) => p.rows).length).toBeGreaterThan(0);
        const backward = [...back].reverse();
        expect(backward.flatMap((p: WalkedPage) => p.rows.map((r) => r[c.key]))).toEqual(after.map((r) => r[c.key]));
        expect(backward[0]).toMatchObject({ page: 1 });
        expect(backward[0].links.prev).toBeUndefined();
        const numbers = back.map((p) => p.page);
        expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
      });
    }
  }

  describe('a cursor that is not the list\'s own', () => {
    const refused = async (url: string, who: TestClient = all) => {
      const res = await request(t.http).get(url).set('Authorization', who.bearer);
      expect({ url, status: res.status, error: res.body.error, fields: Object.keys(res.body.details ?? {}) }).toEqual({ url, status: 400, error: 'validation_error', fields: ['cursor'] });
      return res.body.details.cursor[0] as string;
    };
    const nextOf = async (url: string, who: TestClient = all) => (await getPage(t, who.bearer, url)).links.next;

    it('refuses text that is no cursor, and two cursors', async () => {
      const junk = ['', 'x', 'a.b', '%25%25', 'eyJ2IjoxfQ.AAAAAAAAAAAAAAAAAAAAAA', 'A'.repeat(3000) + '.AAAAAAAAAAAAAAAAAAAAAA', '%ED%A0%80', "'%20OR%201=1--", '%00', '{}'];
      for (const cursor of junk) await refused(`/api/v1/Item?cursor=${cursor}`);
      const next = (await nextOf('/api/v1/Item?pageSize=2'))!;
      await refused(`${next}&cursor=${cursorOf(next)}`);
    });

    it('refuses a cursor changed in any way', async () => {
      const next = (await nextOf('/api/v1/Inventory?pageSize=2'))!;
      const cursor = cursorOf(next);
      const [body, mac] = cursor.split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
      const edited = Buffer.from(JSON.stringify({ ...payload, p: 1 })).toString('base64url');
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      for (const bad of [`${edited}.${mac}`, `${flip(body, 5)}.${mac}`, `${body}.${flip(mac, 3)}`, `${body}.${mac.slice(1)}`, body, `${body}.${mac}.${mac}`]) {
        expect(await refused(withParams(next, { cursor: bad }))).toMatch(/^cursor is not valid/);
      }
      // The same cursor, untouched, is read.
      expect((await getPage(t, all.bearer, next)).page).toBe(2);
    });

    it('refuses a cursor of another list, sort, direction, pageSize, filter, warehouse or scope, or another page', async () => {
      const items = (await nextOf('/api/v1/Item?pageSize=2'))!;
      const lots = (await nextOf('/api/v1/Inventory/2?pageSize=2&sort=units'))!;
      const ledger = (await nextOf('/api/v1/Inventory/Transactions?pageSize=2'))!;
      const mixes: Array<[string, string, TestClient?]> = [
        [withParams(items, { cursor: null }).replace('/Item?', '/Item/All?'), items],
        [withParams(lots, { cursor: null }).replace('/Inventory/2?', '/Inventory/1?'), lots],
        [withParams(lots, { cursor: null }).replace('/Inventory/2?', '/Inventory?'), lots],
        [withParams(lots, { sort: 'spot' }), lots],
        [withParams(lots, { direction: 'DESC' }), lots],
        [withParams(lots, { pageSize: '3' }), lots],
        [withParams(lots, { itemID: stocked[0] }), lots],
        [withParams(lots, { modifiedSince: '2020-01-01' }), lots],
        [withParams(ledger, { cursor: null }), ledger, some],
        [withParams(ledger, { cursor: null }).replace('/Inventory/Transactions?', '/Inventory?'), ledger],
        [withParams(ledger, { cursor: null, itemID: 'NO-SUCH-ITEM' }), ledger],
        [withParams(items, { page: '5' }), items],
      ];
      for (const [url, from, who] of mixes) await refused(withParams(url, { cursor: cursorOf(from) }), who);
    });

    it('refuses a cursor made by another deployment (another LIST_CURSOR_SECRET), on the same data', async () => {
      const other = await startTestApp({ database: t.database, config: { listCursorSecret: 'another-deployment-secret' } });
      try {
        const next = (await getPage(other, all.bearer, '/api/v1/Item?pageSize=2')).links.next;
        expect(await refused(next)).toMatch(/^cursor is not valid/);
      } finally {
        await other.close();
      }
    });

    it('reads the links of a page with its cursors as page numbers would: first and last without, next and prev with', async () => {
      const page2 = await getPage(t, all.bearer, (await nextOf('/api/v1/Item/All?pageSize=3&sort=partNo'))!);
      expect(page2.page).toBe(2);
      expect(new URL(page2.links.first, 'http://x').searchParams.get('cursor')).toBeNull();
      expect(new URL(page2.links.last, 'http://x').searchParams.get('cursor')).toBeNull();
      const byNumber = await getPage(t, all.bearer, '/api/v1/Item/All?pageSize=3&sort=partNo&page=2');
      expect(page2.rows).toEqual(byNumber.rows);
      expect((await getPage(t, all.bearer, page2.links.prev)).rows).toEqual((await getPage(t, all.bearer, '/api/v1/Item/All?pageSize=3&sort=partNo')).rows);
      expect((await getPage(t, all.bearer, page2.links.next)).rows).toEqual((await getPage(t, all.bearer, '/api/v1/Item/All?pageSize=3&sort=partNo&page=3')).rows);
    });
  });

  /** The default order of each list: shortID ascending, received (not shown) descending, partNo, id. */
  function defaultValue(c: ListCase): ((row: Row) => Value) | null {
    if (c.path.includes('StockLevels')) return num('partNo');
    if (c.path.includes('Transactions')) return num('id');
    if (c.path.includes('Inventory')) return str('received');
    return key('shortID');
  }

  function expectOrdered(rows: Row[], value: (row: Row) => Value, keyField: string, direction: string): void {
    const sign = direction === 'ASC' ? 1 : -1;
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]];
      const cmp = compare(value(a), value(b)) || compare(Number(a[keyField]), Number(b[keyField]));
      if (cmp * sign >= 0) throw new Error(`out of order at ${i}: ${JSON.stringify(a)} then ${JSON.stringify(b)}`);
    }
  }
  function compare(a: Value, b: Value): number {
    return a < b ? -1 : a > b ? 1 : 0;
  }
});
