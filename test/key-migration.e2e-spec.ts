import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { ItemsService } from '../src/catalog/items.service.js';
import { nfcFold } from '../src/database/migrations/sqlite/1763806000000-NfkcKeys.js';
import { createTestDatabase, startTestApp, testDatabaseKind, type TestApp, type TestDatabase } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { givenItem } from './support/catalog.js';

/**
 * Migration NfkcKeys: rows written before it hold lower-cased NFC keys
 * (`ＡＢＣ-7` → `ａｂｃ-7`); it recomputes them as NFKC case folds, and when two
 * rows fold to one key, the one holding it (else the oldest) keeps it, the
 * other keeps its old key and is reported, and the service starts.
 */
describe(`migration NfkcKeys recomputes the keys of existing rows (${testDatabaseKind()})`, () => {
  let db: TestDatabase;
  let t: TestApp;
  let admin: TestClient;
  const log: Array<{ level: number; msg: string; context?: string }> = [];
  const partNo: Record<string, number> = {};
  let downKey = '';
  const keyOf = async (n: number) => (await t.dataSource.query('SELECT shortIdKey AS k FROM item WHERE partNo = ?', [n]))[0].k as string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const before = await startTestApp({ database: db });
    try {
      const client = await givenClient(before);
      partNo.foo = (await givenItem(before, client.bearer, { shortID: 'Ｆｏｏ-1' })).partNo;
      const made: Record<string, string> = {};
      for (const name of ['abc', 'dup', 'dupLookAlike', 'zzzLookAlike', 'zzz']) {
        const item = await givenItem(before, client.bearer);
        [partNo[name], made[name]] = [item.partNo, item.shortID];
      }
      // Back to the schema and keys of the version before it (its down, after the down of every later migration)...
      const applied: Array<{ name: string }> = await before.dataSource.query('SELECT name FROM migrations ORDER BY id DESC');
      const undo = applied.findIndex((m) => m.name === 'NfkcKeys1763806000000');
      expect(undo).toBeGreaterThanOrEqual(0);
      for (let i = 0; i <= undo; i++) await before.dataSource.undoLastMigration({ transaction: 'each' });
      downKey = (await before.dataSource.query('SELECT shortIdKey AS k FROM item WHERE partNo = ?', [partNo.foo]))[0].k;
      // ...and rows as that version wrote them, including look-alikes it let in.
      const oldRow = async (name: string, shortID: string) => {
        if (name === 'abc') {
          await before.app.get(ItemsService).createAlias(made[name], 'CUST-TMP');
          await before.dataSource.query('UPDATE item_alias SET alias = ?, aliasKey = ? WHERE alias = ?', ['ＣＵＳＴ-7', nfcFold('ＣＵＳＴ-7'), 'CUST-TMP']);
        }
        await before.dataSource.query('UPDATE item SET shortID = ?, shortIdKey = ? WHERE partNo = ?', [shortID, nfcFold(shortID), partNo[name]]);
      };
      await oldRow('abc', 'ＡＢＣ-7');
      await oldRow('dup', 'dup-1');
      await oldRow('dupLookAlike', 'ＤＵＰ-1');
      await oldRow('zzzLookAlike', 'ＺＺＺ-1');
      await oldRow('zzz', 'zzz-1');
    } finally {
      await before.close();
    }

    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        log.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    t = await startTestApp({ database: db, logger: pino({ level: 'info' }, sink) });
    admin = await givenClient(t);
  });
  afterAll(async () => {
    await t?.close();
    await db?.drop();
  });

  const get = (path: string) => request(t.http).get(`/api/v1${path}`).set('Authorization', admin.bearer);
  const byKey = async (key: string, type = 'id') => {
    const res = await get(`/Item?key=${encodeURIComponent(key)}&type=${type}`);
    return res.status === 200 ? (res.body.partNo as number) : res.status;
  };

  it('went down to lower-cased NFC keys and up again to NFKC folds', async () => {
    expect(downKey).toBe('ｆｏｏ-1');
    expect(await keyOf(partNo.foo)).toBe('foo-1');
    const applied: Array<{ name: string }> = await t.dataSource.query('SELECT name FROM migrations');
    expect(applied.filter((m) => m.name === 'NfkcKeys1763806000000')).toHaveLength(1);
  });

  it('finds a row written before it by every spelling of its key, and by its alias', async () => {
    expect(await keyOf(partNo.abc)).toBe('abc-7');
    for (const key of ['abc-7', 'ABC-7', 'ＡＢＣ-7', 'ａｂｃ-7']) expect(await byKey(key)).toBe(partNo.abc);
    for (const alias of ['cust-7', 'ＣＵＳＴ-7']) expect(await byKey(alias, 'alias')).toBe(partNo.abc);
  });

  it('gives a shared key to the row that held it, else the oldest; the other keeps its old key and is still listed', async () => {
    expect(await byKey('ＤＵＰ-1')).toBe(partNo.dup);
    expect(await byKey('zzz-1')).toBe(partNo.zzz);
    expect(await byKey('ＺＺＺ-1')).toBe(partNo.zzz);
    expect(await keyOf(partNo.dupLookAlike)).toBe('ｄｕｐ-1');
    for (const n of [partNo.dupLookAlike, partNo.zzzLookAlike]) expect((await get(`/Item/${n}`)).status).toBe(200);
    const created = await request(t.http).post('/api/v1/Item').set('Authorization', admin.bearer).send({ shortID: 'Ｄｕｐ-1' });
    expect(created.status).toBe(409);
  });

  it('logs a warning naming each row that did not get its new key, and the row that did', () => {
    const warnings = log.filter((l) => l.level === 40 && l.context === 'NfkcKeys1763806000000').map((l) => l.msg);
    expect(warnings).toEqual([
      expect.stringContaining(`item partNo ${partNo.dupLookAlike} "ＤＵＰ-1" has the same key "dup-1" as item partNo ${partNo.dup} "dup-1"`),
      expect.stringContaining(`item partNo ${partNo.zzzLookAlike} "ＺＺＺ-1" has the same key "zzz-1" as item partNo ${partNo.zzz} "zzz-1"`),
    ]);
  });
});
