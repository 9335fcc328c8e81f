import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import mysql from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { ALL_SECURITY_IDS } from '../src/auth/security-id.js';
import { hashCredential } from '../src/auth/credentials.js';
import { parseDatabaseUrl } from '../src/config/config.js';
import { dataSourceOptions } from '../src/database/data-source.js';
import { SESSION_STATEMENTS } from '../src/database/session.js';
import { ListCountersRepository } from '../src/inventory/list-counters.repository.js';

export interface Seeded {
  items: number;
  lots: number;
  clientId: string;
  clientSecret: string;
  /** An item with a deep stock in warehouse 1, for the contended-issue scenario. */
  hotItem: string;
  /** Open allocations the seed made (seedAllocations); 0 from `seededBefore`, which cannot know. */
  allocations: number;
  /** Wall time of seeding, from dropping the database to the last ANALYZE. */
  seedMs?: number;
}

const WAREHOUSES = 3;
const CHUNK = 5000;

/**
 * What a seed of `lots` lots makes (lots/10 items, the bench client with all
 * SecurityIDs and every warehouse, the hot item); also what a run on a
 * database seeded before (`--no-seed`) works with.
 */
export function seededBefore(lots: number): Seeded {
  return {
    items: Math.max(1, Math.floor(lots / 10)),
    lots,
    clientId: 'c_bench',
    clientSecret: 'bench-secret-not-for-production-000000000',
    hotItem: 'BENCH-0000001',
    allocations: 0,
  };
}

/** What `npm run bench` seeds unless told (`--allocations`): one open allocation for every ten lots (100,000 at 1,000,000 lots, 2,000 at 20,000). */
export function defaultAllocations(lots: number): number {
  return Math.floor(lots / 10);
}

/**
 * A fresh MariaDB database at the given scale: 3 warehouses, lots/10 items,
 * each item's lots spread over the warehouses, a quarter of them archived
 * (issued), and the stock_level and ledger rows that make the stock invariant
 * hold, as if every lot had come in by Receive and gone out by Issue; then
 * `options.allocations` open allocations (default none: seedAllocations).
 */
export async function seed(url: string, lots: number, log: (m: string) => void, options: { allocations?: number } = {}): Promise<Seeded> {
  const t0 = Date.now();
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const server = new URL(url);
  server.pathname = '/';
  const admin = await mysql.createConnection(server.toString());
  await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();

  const ds = new DataSource(dataSourceOptions(parseDatabaseUrl(url)));
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();

  const db = await mysql.createConnection({ uri: url });
  // The service's session settings (src/database/session.ts): mysql2's escaping of the parameters below needs its sql_mode.
  for (const statement of SESSION_STATEMENTS) await db.query(statement);
  const now = new Date();
  const seeded = seededBefore(lots);
  const { items, clientId, clientSecret } = seeded;
  await db.query('INSERT INTO warehouse (wID, name, nameKey, created) VALUES ?', [
    Array.from({ length: WAREHOUSES }, (_, i) => [i + 1, `Warehouse ${i + 1}`, `warehouse ${i + 1}`, now]),
  ]);
  await db.query('INSERT INTO permission_group (name, nameKey, permissions, created) VALUES (?, ?, ?, ?)', ['bench', 'bench', ALL_SECURITY_IDS.join(','), now]);
  await db.query(
    'INSERT INTO integration_client (clientId, name, nameKey, groupId, secretHash, readOnly, disabled, created, modified) VALUES (?, ?, ?, LAST_INSERT_ID(), ?, 0, 0, ?, ?)',
    [clientId, 'bench', 'bench', hashCredential(clientSecret), now, now],
  );
  await db.query('INSERT INTO client_warehouse (clientId, wID) VALUES ?', [Array.from({ length: WAREHOUSES }, (_, i) => [clientId, i + 1])]);

  const started = Date.now();
  for (let from = 0; from < items; from += CHUNK) {
    const rows = [];
    for (let i = from; i < Math.min(items, from + CHUNK); i++) {
      const shortID = `BENCH-${String(i + 1).padStart(7, '0')}`;
      rows.push([i + 1, shortID, shortID.toLowerCase(), `Bench part ${i + 1}`, i % 50, i % 7, 'EA', '', 1, 0, now, now, 0, 'bench']);
    }
    await db.query(
      'INSERT INTO item (partNo, shortID, shortIdKey, description, category, subCategory, uOM, putUp, units, dfltOwner, created, modified, discontinued, createdBy) VALUES ?',
      [rows],
    );
  }
  log(`seeded ${items} items in ${Date.now() - started} ms`);

  const base = now.getTime() - lots * 1000;
  for (let from = 0; from < lots; from += CHUNK) {
    const rows = [];
    for (let j = from; j < Math.min(lots, from + CHUNK); j++) {
      // Every item gets lots in every warehouse (j % items, j % 3), and about a quarter of each item's lots are archived.
      const archived = Math.floor(j / items) % 4 === 3;
      const received = new Date(base + j * 1000);
      const partNo = (j % items) + 1;
      rows.push([j + 1, partNo, `bench-${String(partNo).padStart(7, '0')}`, (j % WAREHOUSES) + 1, `S-${j % 100}`, 10, received, archived ? now : null, `SER-${j}`, '', '', '', 0, 0, '', '', archived ? 0 : 1, received]);
    }
    await db.query(
      'INSERT INTO lot (recNo, partNo, shortIdKey, wID, spot, units, received, shipped, serial, serial2, rFIDTag, remark, hold, jobID, jobName, associate, active, modified) VALUES ?',
      [rows],
    );
  }
  log(`seeded ${lots} lots in ${Date.now() - started} ms`);

  // The hot item: one deep lot in warehouse 1 for the contended-issue scenario.
  await db.query(
    "INSERT INTO lot (partNo, shortIdKey, wID, spot, units, received, serial, serial2, rFIDTag, remark, hold, jobID, jobName, associate, active, modified) VALUES (1, 'bench-0000001', 1, 'HOT', 1000000, ?, '', '', '', '', 0, 0, '', '', 1, ?)",
    [now, now],
  );
  await db.query(
    "INSERT INTO ledger_entry (operationId, operation, partNo, recNo, toWid, toSpot, units, reasonCode, reference, remark, clientId, created) SELECT UUID(), 'receive', partNo, recNo, wID, spot, units, 1, '', '', 'bench', received FROM lot",
  );
  await db.query(
    "INSERT INTO ledger_entry (operationId, operation, partNo, recNo, fromRecNo, fromWid, fromSpot, units, reasonCode, reference, remark, clientId, created) SELECT UUID(), 'issue', partNo, recNo, recNo, wID, spot, units, 2, '', '', 'bench', shipped FROM lot WHERE active = 0",
  );
  await db.query(
    'INSERT INTO stock_level (partNo, wID, inStock, onHold, modified) SELECT partNo, wID, SUM(CASE WHEN active = 1 THEN units ELSE 0 END), 0, MAX(modified) FROM lot GROUP BY partNo, wID',
  );
  await db.query('DELETE FROM stock_count');
  await db.query('INSERT INTO stock_count (scope, items) SELECT 0, COUNT(DISTINCT partNo) FROM stock_level');
  await db.query('INSERT INTO stock_count (scope, items) SELECT wID, COUNT(*) FROM stock_level GROUP BY wID');
  const allocations = options.allocations ?? 0;
  if (allocations > 0) await seedAllocations(db, allocations, now, log);
  // The service's list counters (the allocations' among them), recomputed from the rows written around it.
  for (const statement of new ListCountersRepository().fillStatements('mysql')) await db.query(statement);
  await db.query('ANALYZE TABLE item, lot, stock_level, stock_count, list_count, ledger_entry, allocation');
  log(`seeded ledger and stock levels; ${Date.now() - started} ms in all`);
  await settle(db, log);
  await db.end();
  return { ...seeded, allocations, seedMs: Date.now() - t0 };
}

/**
 * `count` open allocations of one unit each, as if each had been made by
 * POST /Inventory/Allocate (without its event, as the seeded lots have none):
 * each on its own stock_level row with at least one unit available, spread
 * evenly over the rows in (partNo, wID) order, the k-th of every stride of
 * rows taking warehouse k mod stride within it (with 3 rows an item and
 * 1 allocation for every 10 lots: every item once, warehouses 1, 2, 3 in
 * turn); reference `SO-<k>`, no expiry. Then each row's `committed` is set
 * to what its open allocations leave (units − shipped − packed), as an
 * Allocate raises it, and its `modified` to theirs. An Allocate writes the
 * allocation row, its stock_level row, its event and its warehouse's
 * allocation counter, and makes no stock_level row: the seed's fill of the
 * list counters, which runs after, counts the allocations, stock_count stays
 * as it is, and `ledger:check` holds.
 * More allocations than such rows: an error (one unit on each is what the
 * other scenarios leave room for).
 */
async function seedAllocations(db: mysql.Connection, count: number, now: Date, log: (m: string) => void): Promise<void> {
  const started = Date.now();
  const [rows] = (await db.query('SELECT partNo, wID FROM stock_level WHERE inStock - onHold - committed - packed >= 1 ORDER BY partNo, wID')) as [
    Array<{ partNo: number; wID: number }>,
    unknown,
  ];
  if (count > rows.length) throw new Error(`--allocations ${count}: only ${rows.length} stock rows have a unit available for an allocation of their own`);
  const stride = Math.floor(rows.length / count);
  for (let from = 0; from < count; from += CHUNK) {
    const values = [];
    for (let k = from; k < Math.min(count, from + CHUNK); k++) {
      // floor(k·rows/count) + (k mod stride) stays below floor((k+1)·rows/count): every allocation has its own row.
      const row = rows[Math.floor((k * rows.length) / count) + (k % stride)];
      values.push([row.partNo, row.wID, `SO-${k + 1}`, 1, 0, 0, 'open', null, now, now]);
    }
    await db.query('INSERT INTO allocation (partNo, wID, reference, units, packed, shipped, state, expiresAt, created, modified) VALUES ?', [values]);
  }
  await db.query(
    'UPDATE stock_level s JOIN (SELECT partNo, wID, SUM(units - shipped - packed) AS committed, MAX(modified) AS modified FROM allocation' +
      " WHERE state = 'open' GROUP BY partNo, wID) a ON a.partNo = s.partNo AND a.wID = s.wID SET s.committed = a.committed, s.modified = GREATEST(s.modified, a.modified)",
  );
  log(`seeded ${count} open allocations in ${Date.now() - started} ms`);
}

/**
 * Waits, at most two minutes, until InnoDB has done the writing back that the
 * seed set off: after a million rows, the page cleaner goes on flushing for a
 * while in the background and would slow the first scenarios, and not their
 * ceilings measured earlier. Done when under 2% of the buffer pool is dirty,
 * or when the number of dirty pages has not fallen for three seconds (what is
 * left is what InnoDB keeps dirty at rest).
 */
async function settle(db: mysql.Connection, log: (m: string) => void): Promise<void> {
  const t0 = Date.now();
  const status = async () => {
    const [found] = (await db.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_pages_dirty', 'Innodb_buffer_pool_pages_total')",
    )) as [Array<{ Variable_name: string; Value: string }>, unknown];
    const value = (name: string) => Number(found.find((r) => r.Variable_name === name)?.Value ?? 0);
    return { dirty: value('Innodb_buffer_pool_pages_dirty'), total: value('Innodb_buffer_pool_pages_total') };
  };
  let least = Infinity;
  for (let still = 0; still < 3 && Date.now() - t0 < 120_000; ) {
    const { dirty, total } = await status();
    if (dirty <= total * 0.02) break;
    still = dirty < least ? 0 : still + 1;
    least = Math.min(least, dirty);
    await new Promise((r) => setTimeout(r, 1000));
  }
  log(`buffer pool settled after the seed in ${Date.now() - t0} ms`);
}

/**
 * (Re)computes the service's list counters (list_count: lots per warehouse,
 * items, ledger rows, stock sets) from the rows, as its migration does: the
 * seed writes rows around the service. Before a `--no-seed` run too, since
 * ceiling (d) of an older run may have left them behind; the schema is
 * migrated first, so that the table exists.
 */
export async function fillListCounters(url: string): Promise<void> {
  const ds = new DataSource(dataSourceOptions(parseDatabaseUrl(url)));
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
    for (const statement of new ListCountersRepository().fillStatements('mysql')) await ds.query(statement);
  } finally {
    await ds.destroy();
  }
}

/** The part of better-sqlite3's API the SQLite seed uses (the package ships no types of its own). */
interface SqliteDatabase {
  prepare(sql: string): { run(...params: unknown[]): { lastInsertRowid: number | bigint } };
  exec(sql: string): void;
  pragma(sql: string): unknown;
  function(name: string, fn: () => unknown): void;
  transaction(fn: () => void): () => void;
  close(): void;
}

/**
 * A fresh SQLite database file at the given scale, with the same rows as
 * `seed` writes on MariaDB: the schema from the service's migrations, then
 * every row through better-sqlite3 in one transaction of prepared statements,
 * the ledger and stock rows derived in SQL (operation ids from a JS function,
 * SQLite having no UUID()), the list counters recomputed, and ANALYZE.
 * Datetimes are stored as TypeORM stores them on SQLite: UTC text
 * `YYYY-MM-DD HH:MM:SS.SSS`.
 */
export async function seedSqlite(file: string, lots: number, log: (m: string) => void): Promise<Seeded> {
  const t0 = Date.now();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });

  const ds = new DataSource(dataSourceOptions(parseDatabaseUrl(`sqlite:${file}`)));
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();

  const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => SqliteDatabase;
  const db = new Database(file);
  try {
    // The seed is thrown away if it fails: no fsync on every page.
    db.pragma('synchronous = OFF');
    db.function('uuid', () => randomUUID());
    const at = (d: Date) => d.toISOString().slice(0, 23).replace('T', ' ');
    const now = new Date();
    const nowText = at(now);
    const seeded = seededBefore(lots);
    const { items, clientId, clientSecret } = seeded;
    const started = Date.now();

    db.transaction(() => {
      const warehouse = db.prepare('INSERT INTO warehouse (wID, name, nameKey, created) VALUES (?, ?, ?, ?)');
      for (let i = 1; i <= WAREHOUSES; i++) warehouse.run(i, `Warehouse ${i}`, `warehouse ${i}`, nowText);
      const group = db
        .prepare('INSERT INTO permission_group (name, nameKey, permissions, created) VALUES (?, ?, ?, ?)')
        .run('bench', 'bench', ALL_SECURITY_IDS.join(','), nowText);
      db.prepare(
        'INSERT INTO integration_client (clientId, name, nameKey, groupId, secretHash, readOnly, disabled, created, modified) VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?)',
      ).run(clientId, 'bench', 'bench', Number(group.lastInsertRowid), hashCredential(clientSecret), nowText, nowText);
      const access = db.prepare('INSERT INTO client_warehouse (clientId, wID) VALUES (?, ?)');
      for (let i = 1; i <= WAREHOUSES; i++) access.run(clientId, i);

      const item = db.prepare(
        'INSERT INTO item (partNo, shortID, shortIdKey, description, category, subCategory, uOM, putUp, units, dfltOwner, created, modified, discontinued, createdBy) ' +
          "VALUES (?, ?, ?, ?, ?, ?, 'EA', '', 1, 0, ?, ?, 0, 'bench')",
      );
      for (let i = 0; i < items; i++) {
        const shortID = `BENCH-${String(i + 1).padStart(7, '0')}`;
        item.run(i + 1, shortID, shortID.toLowerCase(), `Bench part ${i + 1}`, i % 50, i % 7, nowText, nowText);
      }
      log(`seeded ${items} items in ${Date.now() - started} ms`);

      const lot = db.prepare(
        'INSERT INTO lot (recNo, partNo, shortIdKey, wID, spot, units, received, shipped, serial, serial2, rFIDTag, remark, hold, jobID, jobName, associate, active, modified) ' +
          "VALUES (?, ?, ?, ?, ?, 10, ?, ?, ?, '', '', '', 0, 0, '', '', ?, ?)",
      );
      const base = now.getTime() - lots * 1000;
      for (let j = 0; j < lots; j++) {
        // As seed(): every item gets lots in every warehouse, and about a quarter of each item's lots are archived.
        const archived = Math.floor(j / items) % 4 === 3;
        const received = at(new Date(base + j * 1000));
        const partNo = (j % items) + 1;
        lot.run(j + 1, partNo, `bench-${String(partNo).padStart(7, '0')}`, (j % WAREHOUSES) + 1, `S-${j % 100}`, received, archived ? nowText : null, `SER-${j}`, archived ? 0 : 1, received);
      }
      log(`seeded ${lots} lots in ${Date.now() - started} ms`);

      // The hot item: one deep lot in warehouse 1, as seed() writes it.
      db.prepare(
        'INSERT INTO lot (partNo, shortIdKey, wID, spot, units, received, serial, serial2, rFIDTag, remark, hold, jobID, jobName, associate, active, modified) ' +
          "VALUES (1, 'bench-0000001', 1, 'HOT', 1000000, ?, '', '', '', '', 0, 0, '', '', 1, ?)",
      ).run(nowText, nowText);
      db.exec(
        "INSERT INTO ledger_entry (operationId, operation, partNo, recNo, toWid, toSpot, units, reasonCode, reference, remark, clientId, created) SELECT uuid(), 'receive', partNo, recNo, wID, spot, units, 1, '', '', 'bench', received FROM lot ORDER BY recNo",
      );
      db.exec(
        "INSERT INTO ledger_entry (operationId, operation, partNo, recNo, fromRecNo, fromWid, fromSpot, units, reasonCode, reference, remark, clientId, created) SELECT uuid(), 'issue', partNo, recNo, recNo, wID, spot, units, 2, '', '', 'bench', shipped FROM lot WHERE active = 0 ORDER BY recNo",
      );
      db.exec(
        'INSERT INTO stock_level (partNo, wID, inStock, onHold, modified) SELECT partNo, wID, SUM(CASE WHEN active = 1 THEN units ELSE 0 END), 0, MAX(modified) FROM lot GROUP BY partNo, wID',
      );
      db.exec('DELETE FROM stock_count');
      db.exec('INSERT INTO stock_count (scope, items) SELECT 0, COUNT(DISTINCT partNo) FROM stock_level');
      db.exec('INSERT INTO stock_count (scope, items) SELECT wID, COUNT(*) FROM stock_level GROUP BY wID');
      // The service's list counters, recomputed from the rows written around it.
      for (const statement of new ListCountersRepository().fillStatements('sqlite')) db.exec(statement);
    })();
    db.exec('ANALYZE');
    log(`seeded ledger, stock levels and counters; ${Date.now() - t0} ms in all, migrations and ANALYZE included`);
    return { ...seeded, seedMs: Date.now() - t0 };
  } finally {
    db.close();
  }
}
