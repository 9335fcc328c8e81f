import request from 'supertest';
import { SecurityId } from '../src/auth/security-id.js';
import { ItemsService } from '../src/catalog/items.service.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';

const ITEM_FIELDS = ['partNo', 'shortID', 'description', 'category', 'subCategory', 'uOM', 'putUp', 'units', 'dfltOwner', 'created', 'modified', 'discontinued', 'createdBy'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`item catalog (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t);
  });
  afterAll(() => t.close());

  const get = (path: string, bearer = admin.bearer) => request(t.http).get(`/api/v1${path}`).set('Authorization', bearer);
  const post = (body: object, bearer = admin.bearer) => request(t.http).post('/api/v1/Item').set('Authorization', bearer).send(body);
  const put = (body: object, bearer = admin.bearer) => request(t.http).put('/api/v1/Item').set('Authorization', bearer).send(body);
  const del = (shortId: string, bearer = admin.bearer) => request(t.http).delete(`/api/v1/Item/${encodeURIComponent(shortId)}`).set('Authorization', bearer);

  describe('POST /Item', () => {
    it('answers 201 with status "created", the full item with its assigned partNo, and Location', async () => {
      const res = await post({ shortID: 'POST-1', description: 'Hex bolt M8', category: 4, subCategory: 2, uOM: 'KG', putUp: 'Box', units: 12.5, dfltOwner: 3 });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['shortID', 'status', ...ITEM_FIELDS.filter((f) => f !== 'shortID')]);
      expect(res.body).toMatchObject({ shortID: 'POST-1', status: 'created', description: 'Hex bolt M8', category: 4, subCategory: 2, uOM: 'KG', putUp: 'Box', units: 12.5, dfltOwner: 3, discontinued: false });
      expect(res.body.partNo).toEqual(expect.any(Number));
      expect(res.headers.location).toBe(`/api/v1/Item/${res.body.partNo}`);
      expect(res.body.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(res.body.modified).toBe(res.body.created);
    });

    it('applies the defaults and records the client as createdBy', async () => {
      const res = await post({ shortID: 'POST-DEFAULTS' });
      expect(res.body).toMatchObject({ description: '', category: 0, subCategory: 0, uOM: 'EA', putUp: '', units: 1, dfltOwner: 0, discontinued: false });
      const client = await t.dataSource.query('SELECT name FROM integration_client WHERE clientId = ?', [admin.clientId]);
      expect(res.body.createdBy).toBe(client[0].name);
    });

    it('accepts the getting-started names categoryID, unit and active, and answers in reference names', async () => {
      const res = await post({ shortID: 'POST-GS', categoryID: 9, unit: 'M', active: false });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ category: 9, uOM: 'M', discontinued: true });
      expect(res.body).not.toHaveProperty('categoryID');
      expect(res.body).not.toHaveProperty('unit');
      expect(res.body).not.toHaveProperty('active');
    });

    it('ignores read-only fields sent by the client', async () => {
      const res = await post({ shortID: 'POST-RO', partNo: 999999, created: '2001-01-01T00:00:00Z', createdBy: 'mallory', modified: '2001-01-01T00:00:00Z' });
      expect(res.status).toBe(201);
      expect(res.body.partNo).not.toBe(999999);
      expect(res.body.createdBy).not.toBe('mallory');
      expect(res.body.created.startsWith('2001')).toBe(false);
    });

    it('answers a duplicate shortID with 409 conflict, whatever its case', async () => {
      await post({ shortID: 'Dup-1' });
      for (const shortID of ['Dup-1', 'dup-1', 'DUP-1']) {
        const res = await post({ shortID });
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ statusCode: 409, error: 'conflict', message: `An item with shortID "${shortID}" already exists.`, details: { reason: 'duplicate_short_id', shortID } });
      }
      expect((await get('/Item?key=dup-1')).body.shortID).toBe('Dup-1');
    });

    it('answers an empty object with validation_error on shortID', async () => {
      const res = await post({});
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, error: 'validation_error', message: 'Model validation failed.', details: { shortID: ['shortID is required'] } });
    });

    it('names the field and the rule in validation messages', async () => {
      const res = await post({ shortID: 'x'.repeat(65), units: -1 });
      expect(res.body.details).toEqual({ shortID: ['shortID must be at most 64 characters'], units: ['units must be greater than 0'] });
    });
  });

  describe('GET /Item lookups', () => {
    it('gets an item by shortID with key=&type=id, and type defaults to id', async () => {
      const item = await givenItem(t, admin.bearer, { shortID: 'Look-1' });
      for (const query of ['key=Look-1&type=id', 'key=look-1', 'KEY=LOOK-1&TYPE=ID']) {
        const res = await get(`/Item?${query}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(item);
        expect(Object.keys(res.body)).toEqual(ITEM_FIELDS);
      }
    });

    it('answers an unknown shortID with 404', async () => {
      const res = await get('/Item?key=NOPE-404');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'not_found', message: 'No item with shortID "NOPE-404".', details: null });
    });

    it('refuses a type other than id or alias', async () => {
      const res = await get('/Item?key=Look-1&type=sku');
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual({ type: ['type must be id or alias'] });
    });

    it('gets the item an alias points to, regardless of case, and 404 for an unknown alias', async () => {
      const item = await givenItem(t, admin.bearer, { shortID: 'Aliased-1' });
      await t.app.get(ItemsService).createAlias('aliased-1', 'CUST-9');
      await t.app.get(ItemsService).createAlias('Aliased-1', 'OLD-42');
      expect((await get('/Item?key=cust-9&type=alias')).body).toEqual(item);
      expect((await get('/Item?key=OLD-42&type=ALIAS')).body).toEqual(item);
      const missing = await get('/Item?key=CUST-10&type=alias');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ statusCode: 404, error: 'not_found', message: 'No item with alias "CUST-10".', details: null });
      // A shortID is not an alias.
      expect((await get('/Item?key=Aliased-1&type=alias')).status).toBe(404);
    });

    it('finds discontinued items by key and alias', async () => {
      await givenItem(t, admin.bearer, { shortID: 'Gone-1' });
      await t.app.get(ItemsService).createAlias('Gone-1', 'GONE-ALIAS');
      await del('Gone-1');
      expect((await get('/Item?key=Gone-1')).body.discontinued).toBe(true);
      expect((await get('/Item?key=gone-alias&type=alias')).body.shortID).toBe('Gone-1');
    });

    it('gets an item by partNo, and 404 for a missing or non-numeric partNo', async () => {
      const item = await givenItem(t, admin.bearer);
      expect((await get(`/Item/${item.partNo}`)).body).toEqual(item);
      for (const partNo of ['999999', '0', '-1', 'abc', '1.5', '99999999999']) {
        const res = await get(`/Item/${partNo}`);
        expect(res.status).toBe(404);
        expect(res.body.error).toBe('not_found');
      }
    });

    it('lists a category as a flat array of its active items ordered by shortID', async () => {
      for (const shortID of ['cat-c', 'CAT-A', 'cat-b', 'CAT-D']) await givenItem(t, admin.bearer, { shortID, category: 77 });
      await givenItem(t, admin.bearer, { shortID: 'cat-other', category: 78 });
      await del('CAT-D');
      const res = await get('/Item?Category=77');
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body.map((i: { shortID: string }) => i.shortID)).toEqual(['CAT-A', 'cat-b', 'cat-c']);
      expect(res.headers['x-total-count']).toBeUndefined();
      expect((await get('/Item?category=12345')).body).toEqual([]);
      expect((await get('/Item?Category=abc')).status).toBe(400);
    });
  });

  describe('PUT /Item', () => {
    it('changes only the fields sent and keeps partNo, shortID, created and createdBy', async () => {
      const item = await givenItem(t, admin.bearer, { shortID: 'Upd-1', description: 'before', category: 1, putUp: 'Bag' });
      await sleep(5);
      const res = await put({ shortID: 'upd-1', description: 'after', partNo: 1, created: '2000-01-01T00:00:00Z', createdBy: 'mallory', shortIdKey: 'x' });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['shortID', 'status', ...ITEM_FIELDS.filter((f) => f !== 'shortID')]);
      expect(res.body).toMatchObject({ shortID: 'Upd-1', status: 'updated', description: 'after', category: 1, putUp: 'Bag' });
      expect(res.body.partNo).toBe(item.partNo);
      expect(res.body.created).toBe(item.created);
      expect(res.body.createdBy).toBe(item.createdBy);
      expect(res.body.modified > item.modified).toBe(true);
      expect((await get(`/Item/${item.partNo}`)).body).toEqual(Object.fromEntries(ITEM_FIELDS.map((f) => [f, res.body[f]])));
    });

    it('accepts the getting-started names', async () => {
      await givenItem(t, admin.bearer, { shortID: 'Upd-GS' });
      const res = await put({ shortID: 'Upd-GS', categoryID: 5, unit: 'L' });
      expect(res.body).toMatchObject({ category: 5, uOM: 'L' });
    });

    it('answers 404 for an unknown shortID and 400 without one', async () => {
      const missing = await put({ shortID: 'NOPE-PUT', description: 'x' });
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('not_found');
      const noId = await put({ description: 'x' });
      expect(noId.status).toBe(400);
      expect(noId.body.details).toEqual({ shortID: ['shortID is required'] });
      const malformed = await request(t.http).put('/api/v1/Item').set('Authorization', admin.bearer).set('Content-Type', 'application/json').send('{"shortID":');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toBe('bad_request');
    });

    it('reactivates a discontinued item with discontinued:false (or active:true)', async () => {
      await givenItem(t, admin.bearer, { shortID: 'React-1', category: 31 });
      await del('React-1');
      expect((await get('/Item?Category=31')).body).toEqual([]);
      const res = await put({ shortID: 'React-1', discontinued: false });
      expect(res.body.discontinued).toBe(false);
      expect((await get('/Item?Category=31')).body.map((i: { shortID: string }) => i.shortID)).toEqual(['React-1']);
      await del('React-1');
      expect((await put({ shortID: 'React-1', active: true })).body.discontinued).toBe(false);
    });

    it('leaves modified alone when nothing changes', async () => {
      const item = await givenItem(t, admin.bearer, { description: 'same' });
      await sleep(5);
      expect((await put({ shortID: item.shortID, description: 'same' })).body.modified).toBe(item.modified);
    });
  });

  describe('DELETE /Item/<shortID>', () => {
    it('discontinues, keeps the record, drops it from the active list, and answers the same when repeated', async () => {
      const item = await givenItem(t, admin.bearer, { shortID: 'Del-1' });
      const first = await del('del-1');
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ shortID: 'Del-1', status: 'discontinued' });
      const again = await del('Del-1');
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ shortID: 'Del-1', status: 'discontinued' });
      expect((await get(`/Item/${item.partNo}`)).body).toMatchObject({ shortID: 'Del-1', discontinued: true });
      expect((await get('/Item?key=Del-1')).status).toBe(200);
    });

    it('answers 404 for an unknown shortID', async () => {
      const res = await del('NOPE-DEL');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'not_found', message: 'No item with shortID "NOPE-DEL".', details: null });
    });
  });

  describe('access', () => {
    it('refuses reads without SecurityID 11', async () => {
      const noRead = await givenClient(t, { permissions: [SecurityId.ModifyItemMaster] });
      for (const path of ['/Item', '/Item/All', '/Item?key=x', '/Item?Category=1', '/Item/1']) {
        const res = await get(path, noRead.bearer);
        expect(res.status).toBe(403);
        expect(res.body.message).toBe('Insufficient permissions.');
      }
    });

    it('refuses writes without SecurityID 116', async () => {
      const reader = await givenClient(t, { permissions: [SecurityId.ItemMasterList] });
      for (const res of [await post({ shortID: 'NO-116' }, reader.bearer), await put({ shortID: 'NO-116' }, reader.bearer), await del('NO-116', reader.bearer)]) {
        expect(res.status).toBe(403);
        expect(res.body.message).toBe('Insufficient permissions.');
      }
    });

    it('lets a read-only client read but not write', async () => {
      const readOnly = await givenClient(t, { readOnly: true });
      expect((await get('/Item', readOnly.bearer)).status).toBe(200);
      for (const res of [await post({ shortID: 'RO-1' }, readOnly.bearer), await put({ shortID: 'RO-1' }, readOnly.bearer), await del('RO-1', readOnly.bearer)]) {
        expect(res.status).toBe(403);
        expect(res.body.message).toBe('Account is read-only.');
      }
    });

    it('answers 401 without a token', async () => {
      expect((await request(t.http).get('/api/v1/Item')).status).toBe(401);
    });
  });
});

describe(`item lists: paging, order and modifiedSince (${testDatabaseKind()})`, () => {
  let t: TestApp;
  let admin: TestClient;
  const created: Array<{ shortID: string; partNo: number; modified: string }> = [];

  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t);
    // 100 items whose shortIDs differ in case, created out of order.
    const numbers = Array.from({ length: 100 }, (_, i) => (i * 37) % 100);
    for (const n of numbers) {
      const shortID = `${n % 3 === 0 ? 'part' : 'PART'}-${String(n).padStart(3, '0')}`;
      created.push(await givenItem(t, admin.bearer, { shortID, category: n % 5 }));
    }
  });
  afterAll(() => t.close());

  const page = (query: string) => request(t.http).get(`/api/v1/Item?${query}`).set('Authorization', admin.bearer);

  async function walk(query: string): Promise<string[]> {
    const seen: string[] = [];
    for (let n = 1; ; n++) {
      const res = await page(`${query}&page=${n}&pageSize=7`);
      expect(res.status).toBe(200);
      expect(res.body.pageSize).toBe(7);
      expect(res.body.totalCount).toBe(100);
      expect(res.body.pageCount).toBe(15);
      seen.push(...res.body.value.map((i: { shortID: string }) => i.shortID));
      if (!res.body.hasMore) return seen;
    }
  }

  const byShortId = [...Array(100).keys()].map((n) => `${n % 3 === 0 ? 'part' : 'PART'}-${String(n).padStart(3, '0')}`);

  it('walks 100 items at pageSize=7, each exactly once, in shortID order (case-insensitive)', async () => {
    expect(await walk('sort=shortID')).toEqual(byShortId);
    expect(await walk('direction=ASC')).toEqual(byShortId);
  });

  it('walks them in reverse with DESC', async () => {
    expect(await walk('sort=shortID&direction=DESC')).toEqual([...byShortId].reverse());
    expect(await walk('direction=desc')).toEqual([...byShortId].reverse());
  });

  it('sorts by a whitelisted column with partNo breaking ties', async () => {
    const res = await page('sort=category&pageSize=250');
    const rows: Array<{ category: number; partNo: number }> = res.body.value;
    const sorted = [...rows].sort((a, b) => a.category - b.category || a.partNo - b.partNo);
    expect(rows).toEqual(sorted);
    expect(res.body.pageSize).toBe(250);
  });

  it('ignores an unknown or malicious sort and keeps shortID order', async () => {
    for (const sort of ['password', 'shortID;DROP TABLE item', 'createdBy']) {
      expect((await page(`sort=${encodeURIComponent(sort)}&pageSize=250`)).body.value.map((i: { shortID: string }) => i.shortID)).toEqual(byShortId);
    }
  });

  it('answers a page past the end with an empty value', async () => {
    const res = await page('page=99&pageSize=7');
    expect(res.body).toEqual({ value: [], totalCount: 100, page: 99, pageSize: 7, pageCount: 15, hasMore: false });
  });

  it('keeps discontinued items out of /Item and in /Item/All', async () => {
    await request(t.http).delete('/api/v1/Item/part-000').set('Authorization', admin.bearer);
    expect((await page('pageSize=250')).body.totalCount).toBe(99);
    const all = await request(t.http).get('/api/v1/Item/All?pageSize=250').set('Authorization', admin.bearer);
    expect(all.body.totalCount).toBe(100);
    expect(all.body.value[0]).toMatchObject({ shortID: 'part-000', discontinued: true });
    await request(t.http).put('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: 'part-000', discontinued: false });
  });

  it('returns with modifiedSince exactly the items changed at or after the instant', async () => {
    await sleep(10);
    const touched = ['PART-010', 'part-033', 'PART-050'];
    const stamps: string[] = [];
    for (const shortID of touched) {
      const res = await request(t.http).put('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID, description: `changed ${shortID}` });
      stamps.push(res.body.modified);
      await sleep(5);
    }
    const since = async (instant: string, path = '/api/v1/Item') =>
      (await request(t.http).get(`${path}?modifiedSince=${encodeURIComponent(instant)}&pageSize=250`).set('Authorization', admin.bearer)).body.value
        .map((i: { shortID: string }) => i.shortID)
        .sort();
    expect(await since(stamps[0])).toEqual([...touched].sort());
    expect(await since(stamps[1])).toEqual(['PART-050', 'part-033']);
    expect(await since(stamps[2], '/api/v1/Item/All')).toEqual(['PART-050']);
    expect(await since(new Date(Date.parse(stamps[2]) + 1).toISOString())).toEqual([]);
    // Without a zone the instant is UTC.
    expect(await since(stamps[2].replace('Z', ''))).toEqual(['PART-050']);
  });
});
