import request from 'supertest';
import { ACTIVE_ITEM_PAGE_INDEXES } from '../src/catalog/items.repository.js';
import { AllocationExpiry } from '../src/inventory/allocation-expiry.js';
import { LOT_PAGE_INDEXES } from '../src/inventory/inventory-pages.repository.js';
import { ListCountersRepository } from '../src/inventory/list-counters.repository.js';
import { WebhookRelay } from '../src/events/webhook-relay.js';
import { WebhookService } from '../src/events/webhooks.service.js';
import { startTestApp, testDatabaseKind, type TestApp } from './app.factory.js';
import { givenClient, type TestClient } from './support/auth.js';
import { links } from './support/pages.js';

/**
 * The plans of the SQL the lists really run (captured from the service's own
 * data source while it answers), under MariaDB's EXPLAIN, with thousands of
 * rows so that the optimizer's choice means something: for every list, every
 * sort, both directions, page 1 without a cursor and pages reached by `next`
 * and by `prev`, no statement may scan a big table (`type: ALL`) or sort or
 * group one in a temporary table (`Using filesort`, `Using temporary`). The
 * one documented exception: stock levels over several warehouses sorted by
 * a sum, which aggregates the items in scope (docs/api.md). MariaDB only: the
 * SQLite planner is another one, and the service is sized for MariaDB.
 */
const ITEMS = 3000;
const LOTS = 8000;
const WAREHOUSES = [1, 2, 3, 4];
/** Two small warehouses beside the four large ones: a scope of these must not walk a global index. */
const SMALL_WAREHOUSES = [5, 6];
const SMALL_LOTS = 40;
/** Plan rows estimated at fewer rows than this read too little to matter (a page is at most 251 keys). */
const SMALL = 500;

interface Captured {
  sql: string;
  parameters: unknown[];
}
interface PlanRow {
  table: string | null;
  type: string | null;
  key: string | null;
  rows: number | string | null;
  Extra: string | null;
}

(testDatabaseKind() === 'mysql' ? describe : describe.skip)('query plans of every list on MariaDB', () => {
  let t: TestApp;
  let all: TestClient;
  let some: TestClient;
  let small: TestClient;
  let capture: Captured[] | null = null;

  beforeAll(async () => {
    t = await startTestApp();
    all = await givenClient(t, { warehouses: [...WAREHOUSES, ...SMALL_WAREHOUSES] });
    some = await givenClient(t, { warehouses: [1, 2] });
    small = await givenClient(t, { warehouses: SMALL_WAREHOUSES });
    await seed(t);
    const logger = t.dataSource.logger;
    const logQuery = logger.logQuery.bind(logger);
    logger.logQuery = (sql, parameters, runner) => {
      capture?.push({ sql, parameters: (parameters ?? []) as unknown[] });
      return logQuery(sql, parameters, runner);
    };
  }, 120_000);
  afterAll(() => t?.close());

  /** GET a page and the SELECTs it ran on the list tables. */
  const run = async (who: TestClient, url: string) => {
    capture = [];
    const res = await request(t.http).get(url).set('Authorization', who.bearer);
    const ran = capture;
    capture = null;
    expect({ url, status: res.status }).toEqual({ url, status: 200 });
    return { links: links(res.headers.link), statements: ran.filter((c) => /^SELECT/i.test(c.sql) && /FROM `(item|lot|ledger_entry|stock_level|event|allocation|expectation)`/.test(c.sql)) };
  };
  /** Every plan row of the statements that reads a big table by a scan or through a sort or temporary table. */
  const badPlans = async (statements: Captured[]) => {
    const bad: Array<{ sql: string; plan: PlanRow }> = [];
    for (const s of statements) {
      const plan: PlanRow[] = await t.dataSource.query(`EXPLAIN ${s.sql}`, s.parameters);
      // QUERY_PLANS_SHOW=1 prints every statement with its plan.
      if (process.env.QUERY_PLANS_SHOW) process.stdout.write(`${s.sql}\n${plan.map((r) => `  ${r.table} ${r.type} ${r.key} rows=${r.rows} ${r.Extra ?? ''}`).join('\n')}\n`);
      for (const row of plan) {
        const big = Number(row.rows ?? 0) >= SMALL;
        if (big && (row.type === 'ALL' || /Using (filesort|temporary)/.test(row.Extra ?? ''))) bad.push({ sql: s.sql, plan: row });
      }
    }
    return bad;
  };

  const LISTS: Array<{ name: string; path: string; who: () => TestClient; sorts: string[]; aggregates?: string[] }> = [
    { name: 'active items', path: '/api/v1/Item', who: () => all, sorts: ['shortID', 'partNo', 'description', 'category', 'subCategory', 'created', 'modified'] },
    { name: 'all items', path: '/api/v1/Item/All', who: () => all, sorts: ['shortID', 'partNo', 'description', 'category', 'subCategory', 'created', 'modified'] },
    { name: 'lots of every warehouse', path: '/api/v1/Inventory', who: () => all, sorts: ['recNo', 'received', 'shortID', 'partNo', 'spot', 'units', 'modified'] },
    { name: 'lots of some warehouses', path: '/api/v1/Inventory', who: () => some, sorts: ['recNo', 'received', 'shortID', 'partNo', 'spot', 'units', 'modified'] },
    { name: 'lots of one warehouse', path: '/api/v1/Inventory/3', who: () => all, sorts: ['recNo', 'received', 'shortID', 'partNo', 'spot', 'units', 'modified'] },
    { name: 'stock levels of every warehouse', path: '/api/v1/Inventory/StockLevels', who: () => all, sorts: ['partNo', 'shortID', 'available', 'inStock', 'onHold'], aggregates: ['available', 'inStock', 'onHold'] },
    { name: 'stock levels of some warehouses', path: '/api/v1/Inventory/StockLevels', who: () => some, sorts: ['partNo', 'shortID', 'available', 'inStock', 'onHold'], aggregates: ['available', 'inStock', 'onHold'] },
    { name: 'stock levels of one warehouse', path: '/api/v1/Inventory/StockLevels/3', who: () => all, sorts: ['partNo', 'shortID', 'available', 'inStock', 'onHold'] },
    { name: 'ledger of every warehouse', path: '/api/v1/Inventory/Transactions', who: () => all, sorts: ['id', 'created', 'partNo'] },
    { name: 'ledger of some warehouses', path: '/api/v1/Inventory/Transactions', who: () => some, sorts: ['id', 'created', 'partNo'] },
    ...(['Allocations', 'Expectations'] as const).flatMap((documents) => [
      { name: `${documents.toLowerCase()} of every warehouse`, path: `/api/v1/Inventory/${documents}`, who: () => all, sorts: ['id', 'modified'] },
      { name: `${documents.toLowerCase()} of some warehouses`, path: `/api/v1/Inventory/${documents}`, who: () => some, sorts: ['id', 'modified'] },
      { name: `${documents.toLowerCase()} of one warehouse`, path: `/api/v1/Inventory/${documents}/3`, who: () => all, sorts: ['id', 'modified'] },
    ]),
  ];

  it('the indexes the lot and item pages name to MariaDB (USE INDEX) are the schema\'s', async () => {
    const found: Array<{ t: string; k: string }> = await t.dataSource.query(
      "SELECT DISTINCT TABLE_NAME AS t, INDEX_NAME AS k FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('lot', 'item')",
    );
    const names = (table: string) => found.filter((r) => r.t === table).map((r) => r.k);
    expect(names('lot')).toEqual(expect.arrayContaining(Object.values(LOT_PAGE_INDEXES).flat()));
    expect(names('item')).toEqual(expect.arrayContaining(Object.values(ACTIVE_ITEM_PAGE_INDEXES)));
  });

  it('the sort\'s indexes are named on the keys\' statement only when the list\'s scope alone filters it (no item, no modifiedSince, not GET /Item/All)', async () => {
    const [{ shortID }] = await t.dataSource.query('SELECT i.shortID FROM item i WHERE i.partNo = (SELECT MIN(partNo) FROM lot)');
    const since = new Date(Date.now() - 3600_000).toISOString();
    /** The lists' statements on `table` with the USE INDEX each names (null: none). */
    const hints = async (url: string, table: string) =>
      (await run(all, url)).statements
        .filter((s) => new RegExp(`FROM \`${table}\``).test(s.sql))
        .map((s) => /USE INDEX \(([^)]*)\)/.exec(s.sql)?.[1].replace(/`/g, '') ?? null);
    // The lot page by received: its two indexes on the keys (the derived table; the total is the counters'), on page 1 and the next by cursor.
    const first = await run(all, '/api/v1/Inventory?sort=received&pageSize=25');
    expect(first.links.next).toBeDefined();
    for (const url of ['/api/v1/Inventory?sort=received&pageSize=25', first.links.next!]) {
      expect({ url, hints: await hints(url, 'lot') }).toEqual({ url, hints: [LOT_PAGE_INDEXES['lot.received'].join(', ')] });
    }
    expect(await hints('/api/v1/Inventory/3?sort=spot&direction=DESC&pageSize=25', 'lot')).toEqual([LOT_PAGE_INDEXES['lot.spot'].join(', ')]);
    for (const filtered of [`/api/v1/Inventory?itemID=${shortID}&sort=received`, `/api/v1/Inventory?modifiedSince=${since}&sort=received`]) {
      const found = await hints(filtered, 'lot');
      expect(found.length).toBeGreaterThan(0);
      expect({ filtered, hints: found.filter((h) => h !== null) }).toEqual({ filtered, hints: [] });
    }
    expect(await hints('/api/v1/Item?sort=description', 'item')).toEqual([ACTIVE_ITEM_PAGE_INDEXES['item.description']]);
    for (const unhinted of ['/api/v1/Item/All?sort=description', `/api/v1/Item?modifiedSince=${since}&sort=description`]) {
      const found = await hints(unhinted, 'item');
      expect(found.length).toBeGreaterThan(0);
      expect({ unhinted, hints: found.filter((h) => h !== null) }).toEqual({ unhinted, hints: [] });
    }
  });

  it('a scope of two small warehouses beside large ones reads its lots from the warehouse\'s index, for every sort, not a walk of a global one', async () => {
    const sorts = Object.keys(LOT_PAGE_INDEXES).length;
    const statements: Captured[] = [];
    for (const sort of ['recNo', 'received', 'shortID', 'partNo', 'spot', 'units', 'modified']) {
      for (const direction of ['ASC', 'DESC']) {
        const first = await run(small, `/api/v1/Inventory?sort=${sort}&direction=${direction}&pageSize=25`);
        statements.push(...first.statements);
        if (first.links.next) statements.push(...(await run(small, first.links.next)).statements);
      }
    }
    expect(statements.length).toBeGreaterThanOrEqual(sorts * 2 * 2);
    const read: Array<{ sql: string; key: string | null; rows: number }> = [];
    for (const s of statements) {
      const plan: PlanRow[] = await t.dataSource.query(`EXPLAIN ${s.sql}`, s.parameters);
      for (const row of plan) if (row.table === 'lot' && row.type !== 'eq_ref') read.push({ sql: s.sql, key: row.key, rows: Number(row.rows ?? 0) });
    }
    expect(read.length).toBeGreaterThan(0);
    // 80 lots in scope among 8,000: a walk of a global index in the page's order would be estimated at thousands.
    expect(read.filter((r) => r.rows >= SMALL)).toEqual([]);
    expect(read.filter((r) => !/^IX_lot_wID_/.test(r.key ?? ''))).toEqual([]);
  });

  it('the allocation and expectation lists read an index for each filter (item, reference, state, modifiedSince), and the expiry its own', async () => {
    await seedDocuments(t);
    const [{ shortID }] = await t.dataSource.query('SELECT shortID FROM item WHERE partNo = (SELECT MIN(partNo) FROM allocation)');
    const statements: Captured[] = [];
    for (const documents of ['Allocations', 'Expectations']) {
      for (const filter of [`itemID=${shortID}`, 'reference=D-77', 'state=open', 'state=cancelled', `modifiedSince=${new Date(Date.now() - 3600_000).toISOString()}`]) {
        for (const who of [all, some]) {
          const first = await run(who, `/api/v1/Inventory/${documents}?${filter}&pageSize=20`);
          statements.push(...first.statements);
          if (first.links.next) statements.push(...(await run(who, first.links.next)).statements);
        }
      }
    }
    expect(statements.length).toBeGreaterThanOrEqual(20);
    capture = [];
    await t.app.get(AllocationExpiry).expireDue(new Date(0));
    statements.push(...capture.filter((c) => /^SELECT/i.test(c.sql) && /FROM `?allocation\b/.test(c.sql)));
    capture = null;
    expect(await badPlans(statements)).toEqual([]);
  });

  it('the event feed reads the seq index, for every caller and filter, from the start and from deep in the feed', async () => {
    await seedEvents(t);
    const statements: Captured[] = [];
    for (const who of [all, some]) {
      for (const query of ['', '&types=stock.*', '&types=item.created', '&after=6000']) {
        statements.push(...(await run(who, `/api/v1/Events?limit=1000${query}`)).statements);
      }
    }
    // One page each (and any sweep of the sequencer that ran meanwhile: its reads must use the index too).
    expect(statements.length).toBeGreaterThanOrEqual(8);
    expect(await badPlans(statements)).toEqual([]);
  });

  it('the webhook relay and the webhook commands read their indexes', async () => {
    const ids = await seedWebhooks(t, all.clientId);
    capture = [];
    await t.app.get(WebhookRelay).turn();
    await t.app.get(WebhookService).list(all.clientId);
    await t.app.get(WebhookService).deliveries(String(ids[7]));
    const ran = capture;
    capture = null;
    const statements = ran.filter((c) => /^SELECT/i.test(c.sql) && /FROM `?(webhook_subscription|webhook_delivery|event)\b/.test(c.sql));
    // The look for work, the lag gauge (two reads), the list, the subscription's existence and its attempts.
    expect(statements.length).toBeGreaterThanOrEqual(6);
    expect(await badPlans(statements)).toEqual([]);
  });

  for (const list of LISTS) {
    // The document lists' rows are seeded by the first test that needs them (seedDocuments runs once).
    beforeAll(async () => {
      if (/Allocations|Expectations/.test(list.path)) await seedDocuments(t);
    });
    for (const sort of list.sorts) {
      for (const direction of ['ASC', 'DESC']) {
        const known = list.aggregates?.includes(sort);
        it(`${list.name}, sort=${sort} ${direction}: page 1, next and prev read an index${known ? ' (known: a sum over several warehouses is sorted)' : ''}`, async () => {
          const who = list.who();
          const first = await run(who, `${list.path}?sort=${sort}&direction=${direction}&pageSize=50`);
          const second = await run(who, first.links.next);
          const third = await run(who, second.links.next);
          const back = await run(who, third.links.prev);
          const statements = [first, second, third, back].flatMap((r) => r.statements);
          // Keys, rows and (for prev) the probe after the page: at least one statement of the list per page.
          expect(statements.length).toBeGreaterThanOrEqual(4);
          const bad = await badPlans(statements);
          if (known) expect(bad.every((b) => /stock_level/.test(b.sql))).toBe(true);
          else expect(bad).toEqual([]);
        });
      }
    }
  }
});

/** Thousands of subscriptions, most caught up with the feed, a few behind it and leased by another instance; thousands of attempts. */
async function seedWebhooks(t: TestApp, clientId: string): Promise<number[]> {
  const db = t.dataSource;
  const [{ lastSeq }] = await db.query('SELECT lastSeq FROM event_sequence WHERE id = 1');
  const soon = new Date(Date.now() + 60_000);
  const rows = Array.from({ length: 3000 }, (_, i) => {
    const behind = i % 300 === 0;
    return [i % 50 === 0 ? clientId : `c_other_${i % 97}`, 'http://127.0.0.1:9/hooks', null, 'whsec_AAAA', 0, behind ? Number(lastSeq) - 1 : Number(lastSeq), 0, null, behind ? 'another' : null, behind ? soon : null, new Date()];
  });
  await db.query('INSERT INTO webhook_subscription (clientId, url, types, secret, createdSeq, afterSeq, attempt, nextTry, leaseOwner, leaseUntil, created) VALUES ?', [rows]);
  const ids = (await db.query('SELECT id FROM webhook_subscription ORDER BY id')).map((r: { id: number }) => Number(r.id));
  const attempts = Array.from({ length: 6000 }, (_, j) => [ids[j % 40], '00000000-0000-4000-8000-000000000000', j + 1, 1, 204, null, new Date(), null]);
  await db.query('INSERT INTO webhook_delivery (subscriptionId, eventId, seq, attempt, status, error, attemptedAt, nextTry) VALUES ?', [attempts]);
  await db.query('ANALYZE TABLE webhook_subscription, webhook_delivery');
  return ids;
}

let documentsSeeded = false;

/** Thousands of allocations and expectations: one of each per lot seeded, in its warehouse, in every state; a few references shared by many; then counted. */
async function seedDocuments(t: TestApp): Promise<void> {
  if (documentsSeeded) return;
  documentsSeeded = true;
  const db = t.dataSource;
  const state = "CASE WHEN recNo % 5 = 0 THEN 'done' WHEN recNo % 7 = 0 THEN 'cancelled' ELSE 'open' END";
  await db.query(
    `INSERT INTO allocation (partNo, wID, reference, units, packed, shipped, state, expiresAt, created, modified) SELECT partNo, wID, CONCAT('D-', recNo % 400), 2, 0, 0, ${state}, DATE_ADD(received, INTERVAL 30 DAY), received, modified FROM lot`,
  );
  await db.query(
    `INSERT INTO expectation (partNo, wID, reference, units, received, stage, state, due, created, modified) SELECT partNo, wID, CONCAT('D-', recNo % 400), 3, 0, CASE WHEN recNo % 2 = 0 THEN 'shipped' ELSE 'ordered' END, ${state}, NULL, received, modified FROM lot`,
  );
  // Their counters, as the service keeps them: an unfiltered page reads its total from them.
  for (const statement of new ListCountersRepository().fillStatements('mysql')) await db.query(statement);
  await db.query('ANALYZE TABLE allocation, expectation');
}

/** Thousands of events: from the items and lots seeded (one item event each, one stock event per lot, in their warehouse). */
async function seedEvents(t: TestApp): Promise<void> {
  const db = t.dataSource;
  await db.query("INSERT INTO event (id, seq, unitId, pos, type, occurred, wid, toWid, data) SELECT UUID(), NULL, UUID(), 0, 'item.created', created, NULL, NULL, '{}' FROM item");
  await db.query("INSERT INTO event (id, seq, unitId, pos, type, occurred, wid, toWid, data) SELECT UUID(), NULL, UUID(), 0, 'stock.received', received, wID, NULL, '{}' FROM lot");
  await db.query('UPDATE event SET seq = eventNo WHERE seq IS NULL');
  await db.query('UPDATE event_sequence SET lastSeq = (SELECT MAX(seq) FROM event)');
  await db.query('ANALYZE TABLE event');
}

/** Thousands of items, lots in four warehouses, their ledger rows and stock levels, written in SQL, then counted and analyzed. */
async function seed(t: TestApp): Promise<void> {
  const db = t.dataSource;
  const now = Date.now();
  const at = (s: number) => new Date(now - s * 1000);
  const items = Array.from({ length: ITEMS }, (_, i) => {
    const shortID = `${i % 2 ? 'qp' : 'QP'}-${String(i).padStart(5, '0')}`;
    return [shortID, shortID.toLowerCase(), `Part ${i % 40}`, i % 30, i % 7, 'EA', '', 1, 0, at(ITEMS - i), at((i * 7919) % ITEMS), i % 10 === 0 ? 1 : 0, 'plans'];
  });
  await db.query(
    'INSERT INTO item (shortID, shortIdKey, description, category, subCategory, uOM, putUp, units, dfltOwner, created, modified, discontinued, createdBy) VALUES ?',
    [items],
  );
  const [{ first }] = await db.query('SELECT MIN(partNo) AS first FROM item WHERE createdBy = ?', ['plans']);
  const lots = Array.from({ length: LOTS }, (_, j) => {
    const n = j % ITEMS;
    const archived = j % 5 === 4;
    return [Number(first) + n, String(items[n][1]), WAREHOUSES[j % 4], `S-${j % 60}`, 1 + (j % 17), at(LOTS - j), archived ? at(1) : null, archived ? 0 : 1, at((j * 104729) % LOTS)];
  });
  const smallLots = Array.from({ length: SMALL_LOTS * SMALL_WAREHOUSES.length }, (_, j) => {
    const n = (j * 37) % ITEMS;
    return [Number(first) + n, String(items[n][1]), SMALL_WAREHOUSES[j % SMALL_WAREHOUSES.length], `S-${j % 60}`, 1 + (j % 17), at(LOTS - j * 97), null, 1, at((j * 7907) % LOTS)];
  });
  await db.query('INSERT INTO lot (partNo, shortIdKey, wID, spot, units, received, shipped, active, modified) VALUES ?', [[...lots, ...smallLots]]);
  await db.query(
    "INSERT INTO ledger_entry (operationId, operation, partNo, recNo, toWid, toSpot, units, reasonCode, reference, remark, clientId, created) SELECT UUID(), 'receive', partNo, recNo, wID, spot, units, 1, '', '', 'plans', received FROM lot",
  );
  await db.query(
    "INSERT INTO ledger_entry (operationId, operation, partNo, recNo, fromRecNo, fromWid, fromSpot, units, reasonCode, reference, remark, clientId, created) SELECT UUID(), 'issue', partNo, recNo, recNo, wID, spot, units, 2, '', '', 'plans', shipped FROM lot WHERE active = 0",
  );
  await db.query(
    'INSERT INTO stock_level (partNo, wID, inStock, onHold, modified) SELECT partNo, wID, SUM(CASE WHEN active = 1 THEN units ELSE 0 END), 0, MAX(modified) FROM lot GROUP BY partNo, wID',
  );
  await db.query('DELETE FROM stock_count');
  await db.query('INSERT INTO stock_count (scope, items) SELECT 0, COUNT(DISTINCT partNo) FROM stock_level');
  await db.query('INSERT INTO stock_count (scope, items) SELECT wID, COUNT(*) FROM stock_level GROUP BY wID');
  for (const statement of new ListCountersRepository().fillStatements('mysql')) await db.query(statement);
  await db.query('ANALYZE TABLE item, lot, ledger_entry, stock_level');
}
