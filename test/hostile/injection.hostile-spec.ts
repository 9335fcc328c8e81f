import request from 'supertest';
import { startTestApp, type TestApp } from '../app.factory.js';
import { givenClient, type TestClient } from '../support/auth.js';
import { givenItem } from '../support/catalog.js';
import { eventsAfter, lastSeq } from '../support/events.js';
import { batch, count, hold, issue, lotsOf, move, receive, release } from '../support/inventory.js';

/**
 * SQL injection through every text field of every write endpoint, on a server
 * whose global sql_mode has NO_BACKSLASH_ESCAPES and ANSI_QUOTES (run by the
 * `hostile:server-settings` project, whose global setup starts that server).
 * mysql2 escapes a quote as `\'`: if the session took the server's mode, that
 * backslash would be text and the quote would close the literal. The service
 * sets its own session settings on every connection and sends one statement
 * per query (docs/operations.md "Session settings"), so every payload below is
 * stored, and read back, as the text it is, and changes nothing else: no
 * client disabled, no other item renamed, no secret in any answer.
 */

const PAYLOADS = [
  // Read the clients' secrets into an item's putUp (the INSERT of an item, column for column).
  "', 0, 0, 0x4541, (SELECT SUBSTR(GROUP_CONCAT(clientId,0x3a,secretHash),1,100) FROM integration_client), 1, 0, NOW(), NOW(), 0, 0x78)#",
  // Stacked statements.
  "'); UPDATE integration_client SET enabled=0; UPDATE item SET description=0x41 WHERE 1=1; -- ",
  "', 0, 0, 0x4541, 0x78, 1, 0, NOW(), NOW(), 0, 0x78); UPDATE integration_client SET disabled=1; UPDATE item SET description=0x41 WHERE 1=1#",
  // A backslash of the client's own before the quote, and the other quotes.
  "\\'); UPDATE integration_client SET disabled=1; UPDATE item SET description=0x41 WHERE 1=1; -- \\ \"x\" `y`",
  // Short enough for the 64-character fields as they are.
  "\\'); UPDATE integration_client SET disabled=1; -- x",
  "', (SELECT GROUP_CONCAT(secretHash) FROM integration_client))#",
];

/** `text` cut to a field's length; an identifier (`spot`, `serial`, …) also without leading or trailing space. */
const fit = (text: string, max: number) => text.slice(0, max).trimEnd();
/** A shortID: also without / ? #, and unique to the case. */
const shortId = (text: string, i: number) => `${i}${fit(text.replace(/[/?#]/g, ''), 60)}`;

/** Every string anywhere in a parsed JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('hostile server settings: no text field is SQL', () => {
  let t: TestApp;
  let admin: TestClient;
  let canary: { partNo: number; description: string };
  /** Every answer's body, to search for secrets at the end. */
  const answers: string[] = [];
  const seen = <R extends { text: string }>(res: R): R => {
    answers.push(res.text);
    return res;
  };
  const ok = (res: request.Response, status: number) => {
    seen(res);
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
    return res;
  };

  beforeAll(async () => {
    t = await startTestApp();
    admin = await givenClient(t, { warehouses: [1, 2] });
    canary = await givenItem(t, admin.bearer, { description: 'canary' });
  });
  afterAll(() => t?.close());

  it('runs on a server whose global settings are hostile, with the service\'s own per session', async () => {
    const [globals] = await t.dataSource.query('SELECT @@GLOBAL.sql_mode AS g, @@SESSION.sql_mode AS s, @@SESSION.time_zone AS tz, @@character_set_client AS cs');
    expect(globals.g).toMatch(/NO_BACKSLASH_ESCAPES/);
    expect(globals.g).toMatch(/ANSI_QUOTES/);
    expect(globals.s).not.toMatch(/NO_BACKSLASH_ESCAPES|ANSI_QUOTES/);
    expect(globals.tz).toBe('+00:00');
    expect(globals.cs).toBe('utf8mb4');
  });

  it('the reported requests: a description that read the secrets into putUp, one with stacked statements', async () => {
    for (const [n, description] of [PAYLOADS[0], PAYLOADS[2]].entries()) {
      const res = ok(await request(t.http).post('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: `REPORTED-${n}`, description }), 201);
      expect(res.body.description).toBe(description);
      expect(res.body.putUp ?? '').not.toMatch(/:/);
    }
  });

  it.each(PAYLOADS.map((p, i) => [i, p] as const))('payload %i goes in every field of every write and reads back as sent', async (i, p) => {
    const after = await lastSeq(t);
    const sid = shortId(p, i);
    const id = (n: number) => `${fit(p, 60)}${n}`; // identifiers: unique per case and field
    const [spot, spot2, spot3, serial, serial2, rfidTag] = [1, 2, 3, 4, 5, 6].map((n) => id(n * 10 + i));
    const reference = fit(p, 100);
    const remark = fit(p, 255);
    const slip = fit(p, 64);
    const prodID = fit(`P${p}`, 64);
    const item = { shortID: sid, description: remark, putUp: reference, uOM: fit(p, 16) };

    const created = ok(await request(t.http).post('/api/v1/Item').set('Authorization', admin.bearer).send(item), 201).body;
    expect(created).toMatchObject(item);
    expect(Math.abs(Date.parse(created.created) - Date.now())).toBeLessThan(120_000);
    const edited = { ...item, description: fit(`PUT ${p}`, 255), putUp: fit(`PUT ${p}`, 100) };
    ok(await request(t.http).put('/api/v1/Item').set('Authorization', admin.bearer).send(edited), 200);

    const texts = { reference, remark };
    const b = admin.bearer;
    ok(await receive(t, b, { itemID: sid, units: 10, spot, serial, serial2, rfidTag, ...texts }), 201);
    ok(await issue(t, b, { itemID: sid, units: 1, spot, serial, prodID, ...texts }), 200);
    ok(await move(t, b, { itemID: sid, units: 2, fromSpot: spot, toSpot: spot2, serial, transitSlip: slip, reference }), 200);
    ok(await hold(t, b, { itemID: sid, units: 1, spot: spot2, serial, ...texts }), 200);
    ok(await release(t, b, { itemID: sid, spot: spot2, serial, ...texts }), 200);
    ok(await count(t, b, { itemID: sid, counted: 6, spot, serial, ...texts }), 200);
    ok(
      await batch(t, b, [
        { op: 'receive', itemID: sid, units: 4, wid: 1, reasonCode: 1, spot: spot3, serial, serial2, rfidTag, ...texts },
        { op: 'issue', itemID: sid, units: 1, wid: 1, reasonCode: 2, spot: spot3, prodID, ...texts },
        { op: 'move', itemID: sid, units: 1, wid: 1, fromSpot: spot3, toSpot: spot, transitSlip: slip, reference },
        { op: 'hold', itemID: sid, units: 1, wid: 1, reasonCode: 3, spot: spot3, ...texts },
        { op: 'release', itemID: sid, wid: 1, reasonCode: 4, spot: spot3, ...texts },
        { op: 'count', itemID: sid, wid: 1, reasonCode: 5, counted: 1, spot: spot3, ...texts },
      ]),
      200,
    );

    // The item as sent (and as edited).
    const read = ok(await request(t.http).get(`/api/v1/Item/${created.partNo}`).set('Authorization', b), 200).body;
    expect(read).toMatchObject({ ...edited, partNo: created.partNo });

    // The lots: their identifiers and remarks as sent.
    const lots = await lotsOf(t, b, sid, 1);
    expect(lots.length).toBeGreaterThan(0);
    for (const lot of lots) {
      expect([spot, spot2, spot3]).toContain(lot.spot);
      expect(lot.serial).toBe(serial);
      expect(lot.serial2).toBe(serial2);
      expect(lot.rFIDTag).toBe(rfidTag);
      expect(['', remark]).toContain(lot.remark);
    }
    expect(lots.some((l) => l.remark === remark)).toBe(true);

    // The ledger: references, remarks and spots as sent; transitSlip and prodID in its `extra`.
    const ledger = ok(await request(t.http).get('/api/v1/Inventory/Transactions').query({ itemID: sid, pageSize: 250 }).set('Authorization', b), 200).body.value as Array<Record<string, unknown>>;
    expect(ledger.length).toBeGreaterThanOrEqual(10);
    for (const row of ledger) {
      expect(row.reference).toBe(reference);
      expect(['', remark]).toContain(row.remark);
      for (const s of [row.fromSpot, row.toSpot]) expect([null, '', spot, spot2, spot3]).toContain(s);
    }
    const extras = (await t.dataSource.query('SELECT extra FROM ledger_entry WHERE partNo = ? AND extra IS NOT NULL', [created.partNo])) as Array<{ extra: string }>;
    const extra = extras.flatMap((r) => strings(JSON.parse(r.extra)));
    expect(extra).toEqual(expect.arrayContaining([slip, prodID]));

    // The events: valid JSON (the feed parses it), every text in them one that was sent.
    const events = (await eventsAfter(t, b, after)).filter((e) => strings(e.data).includes(sid));
    expect(events.length).toBeGreaterThanOrEqual(8);
    const sent = new Set([sid, ...Object.values(item), ...Object.values(edited), spot, spot2, spot3, serial, serial2, rfidTag, reference, remark, slip, prodID]);
    const found = events.flatMap((e) => strings(e.data));
    for (const text of found.filter((s) => /UPDATE|SELECT|'/.test(s))) expect(sent).toContain(text);
    expect(found).toEqual(expect.arrayContaining([sid, reference, spot, serial]));
  });

  it('changed nothing else and leaked no secret', async () => {
    const clients = (await t.dataSource.query('SELECT clientId, secretHash, disabled FROM integration_client')) as Array<{ clientId: string; secretHash: string; disabled: number | boolean }>;
    expect(clients.length).toBeGreaterThanOrEqual(2);
    expect(clients.filter((c) => Number(c.disabled) !== 0)).toEqual([]);
    const read = ok(await request(t.http).get(`/api/v1/Item/${canary.partNo}`).set('Authorization', admin.bearer), 200).body;
    expect(read.description).toBe('canary');
    const [{ renamed }] = await t.dataSource.query("SELECT COUNT(*) AS renamed FROM item WHERE description = 'A'");
    expect(Number(renamed)).toBe(0);
    for (const text of answers) {
      for (const c of clients) {
        expect(text).not.toContain(c.secretHash);
        expect(text).not.toContain(`${c.clientId}:`);
      }
    }
    // Still a working client: a token and a read.
    ok(await request(t.http).get('/api/v1/Item').set('Authorization', admin.bearer), 200);
  });
});
