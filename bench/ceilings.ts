import 'reflect-metadata';
import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Body, Controller, Get, HttpCode, Module, Post, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IsInt, IsNumber, IsString, Min } from 'class-validator';
import mysql from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { caseKey } from '../src/database/case-key.js';
import { mysqlDriver, settingSessions } from '../src/database/session.js';
import { readStoredDecimal, storedTenThousandths, toTenThousandths, withinDecimalMax } from '../src/quantity.js';

/**
 * The ceilings the scenarios are compared with, on the same machine, each the
 * least code that does a scenario's work:
 *   nest <port>        (a) a bare NestJS + Express route answering a constant item-sized JSON body, no guard;
 *   raw <port> <url>   node:http + mysql2, no Nest, no TypeORM, a pool of 10 like the service's:
 *     GET /item/<partNo>            (b) GET /Item/<partNo>'s point query;
 *     GET /lots[?page=&pageSize=]   (c) a page of GET /Inventory: its lots, newest first, as the service sends them;
 *     POST /receive                 (d) POST /Inventory/Receive's transaction.
 *     POST /issue                   (g) POST /Inventory/Issue's transaction, for one lot's part.
 *     POST /allocate                (h) POST /Inventory/Allocate's transaction.
 *     GET /events?after=&limit=     (f) a page of GET /Events: the caller's events after a seq, in seq order.
 *   stack <port> <url> (e) the floor of this stack for a Receive: a NestJS + Express route, its body
 *                      validated by class-validator (ValidationPipe), running (d)'s statements through a
 *                      TypeORM DataSource (mysql2, a pool of 10) query runner; no auth, no idempotency,
 *                      no events, no metrics. What the service's Receive costs beyond it is ours.
 */
const ITEM = {
  partNo: 4711,
  shortID: 'BENCH-0004711',
  description: 'Bench part 4711',
  category: 11,
  subCategory: 0,
  uOM: 'EA',
  putUp: '',
  units: 1,
  dfltOwner: 0,
  created: '2026-11-22T09:30:00.000Z',
  modified: '2026-11-22T09:30:00.000Z',
  discontinued: false,
  createdBy: 'bench',
};

@Controller('item')
class ConstantController {
  @Get(':partNo')
  one() {
    return ITEM;
  }
}

@Module({ controllers: [ConstantController] })
class ConstantModule {}

/** The service's list counters (src/database/counters.ts): a Receive adds to one slot of each at random. */
const COUNTER_SLOTS = 16;
const MAX_PAGE_SIZE = 250;
const MAX_ATTEMPTS = 6;

/**
 * (c) The page's keys first, from the covering index (received, recNo, wID)
 * walked backwards with the warehouse filter read from the index too; then
 * only those rows, joined to their item and warehouse by primary key. ANALYZE
 * on MariaDB 10.11, 10,000 and 1,000,000 lots: the derived table is `index` on
 * IX_lot_received_recNo_wID, "Using where; Using index", no filesort, reading
 * offset + 250 index entries; then `eq_ref` on the PRIMARY keys of lot, item
 * and warehouse, 250 rows each. The hints hold that plan: without
 * STRAIGHT_JOIN a deep page's derived table is estimated at every lot and the
 * join starts from item and warehouse instead (a scan of all items and their
 * lots); without the index hint the range on IX_lot_wID_received would be a
 * choice, sorting all the warehouses' lots; without the PRIMARY hint the
 * 3-row warehouse table goes to a join buffer. The derived table's order does
 * not survive the join, so the 250 rows are put back in order here.
 */
const LOT_PAGE = `SELECT STRAIGHT_JOIN l.recNo, l.partNo, i.shortID, i.description, l.associate, w.name AS warehouse, l.wID, l.spot, l.units,
    l.received, l.shipped, l.serial, l.serial2, l.rFIDTag, l.remark, l.hold, l.jobID, l.jobName, l.active
  FROM (SELECT recNo FROM lot FORCE INDEX (IX_lot_received_recNo_wID) WHERE wID IN (?) ORDER BY received DESC, recNo DESC LIMIT ? OFFSET ?) AS k
  JOIN lot l ON l.recNo = k.recNo
  JOIN item i ON i.partNo = l.partNo
  JOIN warehouse w FORCE INDEX (PRIMARY) ON w.wID = l.wID`;

/** (c) The exact total from the maintained counter, not COUNT(*): a few primary-key rows whatever the number of lots. */
const LOT_TOTAL = "SELECT COALESCE(SUM(n), 0) AS n FROM list_count WHERE list = 'lots' AND scope IN (?)";

interface LotRow {
  recNo: number;
  partNo: number;
  shortID: string;
  description: string;
  associate: string;
  warehouse: string;
  wID: number;
  spot: string;
  units: string;
  received: Date;
  shipped: Date | null;
  serial: string;
  serial2: string;
  rFIDTag: string;
  remark: string;
  hold: number;
  jobID: number;
  jobName: string;
  active: number;
}

async function lotPage(pool: mysql.Pool, wids: number[], url: URL, res: ServerResponse): Promise<void> {
  const page = Math.max(1, Number(url.searchParams.get('page')) || 1);
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Number(url.searchParams.get('pageSize')) || MAX_PAGE_SIZE));
  const [[rows], [[total]]] = await Promise.all([
    pool.query(LOT_PAGE, [wids, pageSize, (page - 1) * pageSize]) as Promise<[LotRow[], unknown]>,
    pool.query(LOT_TOTAL, [wids.map(String)]) as Promise<[Array<{ n: number | string }>, unknown]>,
  ]);
  rows.sort((a, b) => b.received.getTime() - a.received.getTime() || b.recNo - a.recNo);
  const totalCount = Number(total.n);
  const pageCount = Math.ceil(totalCount / pageSize);
  // The service's Page envelope and lot fields (src/pagination/page.ts, toLotResponse), in the same order.
  const body = {
    value: rows.map((r) => ({
      recNo: r.recNo,
      partNo: r.partNo,
      shortID: r.shortID,
      description: r.description,
      associate: r.associate,
      warehouse: r.warehouse,
      wID: r.wID,
      spot: r.spot,
      units: readStoredDecimal(r.units),
      received: r.received.toISOString(),
      shipped: r.shipped ? r.shipped.toISOString() : null,
      serial: r.serial,
      serial2: r.serial2,
      rFIDTag: r.rFIDTag,
      remark: r.remark,
      hold: r.hold === 1,
      jobID: r.jobID,
      jobName: r.jobName,
      active: r.active === 1,
    })),
    totalCount,
    page,
    pageSize,
    pageCount,
    hasMore: page < pageCount,
  };
  res.writeHead(200, { 'Content-Type': 'application/json', 'X-Total-Count': String(totalCount), 'X-Page-Size': String(pageSize), 'X-Page': String(page) });
  res.end(JSON.stringify(body));
}

/**
 * (f) A page of the feed as GET /Events reads it (EventsService.pageText): the
 * events after `after` in seq order that touch the caller's warehouses (or
 * none: item events), one more than the page to know whether more follow;
 * each event's stored data text put into the page's JSON text as it is, as
 * the feed sends it (the service writes that text in 64 KB pieces; this
 * ceiling sends it as one string, the plain way).
 */
async function eventPage(pool: mysql.Pool, wids: number[], url: URL, res: ServerResponse): Promise<void> {
  const after = Math.max(0, Number(url.searchParams.get('after')) || 0);
  const limit = Math.min(1000, Math.max(1, Number(url.searchParams.get('limit')) || 100));
  const [rows] = (await pool.query(
    'SELECT id, seq, type, occurred, data FROM event WHERE seq > ? AND (wid IS NULL OR wid IN (?) OR toWid IN (?)) ORDER BY seq LIMIT ?',
    [after, wids, wids, limit + 1],
  )) as [Array<{ id: string; seq: number | string; type: string; occurred: Date; data: string }>, unknown];
  const page = rows.slice(0, limit);
  const pieces = page.map((e) => `{"id":${JSON.stringify(e.id)},"seq":${Number(e.seq)},"type":${JSON.stringify(e.type)},"occurred":"${e.occurred.toISOString()}","data":${e.data}}`);
  const next = page.length ? Number(page[page.length - 1].seq) : after;
  const text = `{"value":[${pieces.join(',')}],"next":${next},"hasMore":${rows.length > limit}}`;
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * (d) Receive as one READ COMMITTED transaction on one pooled connection, one
 * statement per step, in the service's lock order (item, then its stock_level
 * row, then stock_count scope 0 before the warehouse's own):
 *   lock the item row; upsert the stock_level row, adding the units (locks it,
 *   creates it if missing); read the item's total and its number of stock rows
 *   (the bound on an item's stock, and whether the new row is its first);
 *   insert the lot; count a new stock row in stock_count; insert the ledger
 *   row; count the lot and the ledger row (and a new stock row's stock set)
 *   in list_count, one statement, as the service does; COMMIT.
 * Retried on deadlock and lock wait timeout like the service's TransactionRunner.
 */
async function receive(pool: mysql.Pool, raw: string): Promise<[number, object]> {
  const { partNo, shortID, wid, units } = stockBody(raw);
  if (partNo !== undefined && !(Number.isInteger(partNo) && (partNo as number) > 0)) throw new Refused(400, 'partNo must be a positive integer');
  if (partNo === undefined && typeof shortID !== 'string') throw new Refused(400, 'partNo or shortID is required');
  const key = partNo === undefined ? { shortIdKey: caseKey(shortID as string) } : { partNo: partNo as number };
  return retried(pool, (conn) => receiveOnce(conn, key, wid, units));
}

/** A stock operation's JSON body, its `wid` and `units` checked (units in ten-thousandths as `count`); 400 otherwise. */
function stockBody(raw: string): { partNo?: unknown; shortID?: unknown; reference?: unknown; wid: number; units: number; count: bigint } {
  let body: { partNo?: unknown; shortID?: unknown; reference?: unknown; wid?: unknown; units?: unknown };
  try {
    body = JSON.parse(raw);
  } catch {
    throw new Refused(400, 'body is not JSON');
  }
  const { wid, units } = body;
  if (!Number.isInteger(wid) || (wid as number) < 1) throw new Refused(400, 'wid must be a positive integer');
  const count = toTenThousandths(units as number);
  if (count === null || count <= 0n) throw new Refused(400, 'units must be > 0 with at most 4 decimal places');
  return { ...body, wid: wid as number, units: units as number, count };
}

/** `once` on a pooled connection, rolled back and tried again on deadlock or lock wait timeout, like the service's TransactionRunner. */
async function retried(pool: mysql.Pool, once: (conn: Queryable) => Promise<[number, object]>): Promise<[number, object]> {
  for (let attempt = 1; ; attempt++) {
    const conn = await pool.getConnection();
    try {
      return await once(conn);
    } catch (error) {
      await conn.query('ROLLBACK').catch(() => undefined);
      const errno = (error as { errno?: number }).errno;
      if (!(errno === 1213 || errno === 1205) || attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
    } finally {
      conn.release();
    }
  }
}

/** What receiveOnce uses of a connection: mysql2's `query`, answering `[rows or result header, …]`. */
type Queryable = Pick<mysql.PoolConnection, 'query'>;

async function receiveOnce(conn: Queryable, key: { partNo: number } | { shortIdKey: string }, wid: number, units: number): Promise<[number, object]> {
  await conn.query('START TRANSACTION');
  const [items] = (await conn.query(
    'partNo' in key ? 'SELECT partNo, shortID, shortIdKey, discontinued FROM item WHERE partNo = ? FOR UPDATE' : 'SELECT partNo, shortID, shortIdKey, discontinued FROM item WHERE shortIdKey = ? FOR UPDATE',
    ['partNo' in key ? key.partNo : key.shortIdKey],
  )) as [Array<{ partNo: number; shortID: string; shortIdKey: string; discontinued: number }>, unknown];
  const item = items[0];
  if (!item) throw new Refused(400, 'no such item');
  if (item.discontinued) throw new Refused(409, `item ${item.shortID} is discontinued`);
  const now = new Date();
  // affectedRows: 1 when the row was inserted, 2 when an existing row was updated.
  const [level] = (await conn.query(
    'INSERT INTO stock_level (partNo, wID, inStock, onHold, modified) VALUES (?, ?, ?, 0, ?) ON DUPLICATE KEY UPDATE inStock = inStock + VALUES(inStock), modified = VALUES(modified)',
    [item.partNo, wid, units, now],
  )) as [mysql.ResultSetHeader, unknown];
  const created = level.affectedRows === 1;
  const [[sums]] = (await conn.query(
    "SELECT SUM(inStock) AS total, COUNT(*) AS levels, GROUP_CONCAT(wID ORDER BY wID SEPARATOR ',') AS wids FROM stock_level WHERE partNo = ?",
    [item.partNo],
  )) as [Array<{ total: string; levels: number; wids: string }>, unknown];
  // The total already includes these units; every warehouse's stock is within it.
  if (!withinDecimalMax(storedTenThousandths(sums.total), 0)) throw new Refused(409, `stock of ${item.shortID} would exceed the maximum`);
  const [lot] = (await conn.query(
    "INSERT INTO lot (partNo, shortIdKey, wID, spot, units, received, serial, serial2, rFIDTag, remark, hold, jobID, jobName, associate, active, modified) VALUES (?, ?, ?, '', ?, ?, '', '', '', '', 0, 0, '', '', 1, ?)",
    [item.partNo, item.shortIdKey, wid, units, now, now],
  )) as [mysql.ResultSetHeader, unknown];
  if (created) {
    // Scope 0 counts items stocked in any warehouse: only the item's first row adds to it.
    const scopes = Number(sums.levels) === 1 ? [0, wid] : [wid];
    await conn.query('INSERT INTO stock_count (scope, items) VALUES ? ON DUPLICATE KEY UPDATE items = items + 1', [scopes.map((s) => [s, 1])]);
  }
  await conn.query(
    "INSERT INTO ledger_entry (operationId, operation, partNo, recNo, toWid, toSpot, units, reasonCode, reference, remark, clientId, created) VALUES (?, 'receive', ?, ?, ?, '', ?, 1, '', '', 'bench', ?)",
    [randomUUID(), item.partNo, lot.insertId, wid, units, now],
  );
  const counts: Array<[string, string, number]> = [['ledger', `0>${wid}`, 1], ['lots', String(wid), 1]];
  if (created) {
    const wids = String(sums.wids);
    const before = wids.split(',').filter((w) => w !== String(wid));
    counts.push(['stock', wids, 1]);
    if (before.length) counts.push(['stock', before.join(','), -1]);
  }
  // In primary-key order, as the service writes them.
  const rows = counts.sort(([l1, s1], [l2, s2]) => (l1 + '\n' + s1 < l2 + '\n' + s2 ? -1 : 1)).map(([list, scope, by]) => [list, scope, randomInt(COUNTER_SLOTS), by]);
  await conn.query('INSERT INTO list_count (list, scope, slot, n) VALUES ? ON DUPLICATE KEY UPDATE n = n + VALUES(n)', [rows]);
  await conn.query('COMMIT');
  return [201, { status: 'received', recNo: lot.insertId }];
}

/**
 * (g) POST /Inventory/Issue's transaction, as the service runs it when the
 * oldest lot holds the units (the bench's Issues take 0.0001 of a unit):
 * the item's partNo by its shortID key (not locked); START TRANSACTION; the
 * item row held in share mode (the lock order: a split's insert into lot
 * checks its foreign key to the item; held first, it does not deadlock with
 * a writer that locks the item); the
 * stock_level row and the item's in-stock, not held lots in the warehouse,
 * locked in one statement; the oldest lot with the units either archived
 * whole or split, the part issued becoming an archived lot of its own; the
 * stock_level row less the units; the ledger row; the ledger and (for a
 * split) lot counters in list_count; COMMIT. Each statement its own round
 * trip, as (d)'s; no event. 409 when the lots do not hold the units.
 */
async function issue(pool: mysql.Pool, raw: string): Promise<[number, object]> {
  const { shortID, wid, units, count } = stockBody(raw);
  if (typeof shortID !== 'string') throw new Refused(400, 'shortID is required');
  const [items] = (await pool.query('SELECT partNo FROM item WHERE shortIdKey = ?', [caseKey(shortID)])) as [Array<{ partNo: number }>, unknown];
  if (!items[0]) throw new Refused(400, 'no such item');
  return retried(pool, (conn) => issueOnce(conn, items[0].partNo, wid, units, count));
}

const LOT_COPY =
  'partNo, shortIdKey, wID, spot, units, received, shipped, serial, serial2, rFIDTag, remark, hold, jobID, jobName, associate, active, netWeight, grossWeight, price, expires, supplier, poLine, modified';

async function issueOnce(conn: Queryable, partNo: number, wid: number, units: number, count: bigint): Promise<[number, object]> {
  await conn.query('START TRANSACTION');
  await conn.query('SELECT partNo FROM item WHERE partNo = ? LOCK IN SHARE MODE', [partNo]);
  const [found] = (await conn.query(
    'SELECT s.inStock, l.recNo, l.units, l.spot, l.received FROM stock_level s LEFT JOIN lot l ON l.partNo = s.partNo AND l.wID = s.wID AND l.active = 1 AND l.hold = 0 WHERE s.partNo = ? AND s.wID = ? FOR UPDATE',
    [partNo, wid],
  )) as [Array<{ inStock: string; recNo: number | null; units: string; spot: string; received: Date }>, unknown];
  const lots = found.filter((r) => r.recNo !== null).sort((a, b) => a.received.getTime() - b.received.getTime() || a.recNo! - b.recNo!);
  const lot = lots.find((l) => storedTenThousandths(l.units) >= count);
  if (!lot) {
    await conn.query('ROLLBACK');
    throw new Refused(409, 'insufficient stock in one lot');
  }
  const now = new Date();
  let recNo = lot.recNo!;
  if (storedTenThousandths(lot.units) === count) {
    await conn.query('UPDATE lot SET active = 0, shipped = ?, modified = ? WHERE recNo = ?', [now, now, recNo]);
  } else {
    const [part] = (await conn.query(
      `INSERT INTO lot (${LOT_COPY}) SELECT partNo, shortIdKey, wID, spot, ?, received, ?, serial, serial2, rFIDTag, remark, hold, jobID, jobName, associate, 0, netWeight, grossWeight, price, expires, supplier, poLine, ? FROM lot WHERE recNo = ?`,
      [units, now, now, recNo],
    )) as [mysql.ResultSetHeader, unknown];
    await conn.query('UPDATE lot SET units = units - ?, modified = ? WHERE recNo = ?', [units, now, lot.recNo]);
    recNo = part.insertId;
  }
  await conn.query('UPDATE stock_level SET inStock = inStock - ?, modified = ? WHERE partNo = ? AND wID = ?', [units, now, partNo, wid]);
  await conn.query(
    "INSERT INTO ledger_entry (operationId, operation, partNo, recNo, fromRecNo, fromWid, fromSpot, units, reasonCode, reference, remark, clientId, created) VALUES (?, 'issue', ?, ?, ?, ?, ?, ?, 2, '', '', 'bench', ?)",
    [randomUUID(), partNo, recNo, lot.recNo, wid, lot.spot, units, now],
  );
  const counts: Array<[string, string, number]> = [['ledger', `${wid}>0`, 1]];
  if (recNo !== lot.recNo) counts.push(['lots', String(wid), 1]);
  await conn.query('INSERT INTO list_count (list, scope, slot, n) VALUES ? ON DUPLICATE KEY UPDATE n = n + VALUES(n)', [
    counts.map(([list, scope, by]) => [list, scope, randomInt(COUNTER_SLOTS), by]),
  ]);
  await conn.query('COMMIT');
  return [200, { status: 'issued', units, lots: [{ recNo, fromRecNo: lot.recNo, units }] }];
}

/**
 * (h) POST /Inventory/Allocate's transaction, the statements the service's
 * AllocationsService.allocate sends, one per step, in its lock order, without
 * its event (as (d) has none): START TRANSACTION; the item row held in share
 * mode (the service holds it by partNo, its keys cached; here the read finds
 * it by its shortID key, one statement either way); the stock_level row locked, its
 * figures read; `available` (inStock − onHold − committed − packed) checked
 * here, exactly; the allocation inserted; `committed` raised on the row; the
 * warehouse's allocation counter in list_count, as the service counts it;
 * COMMIT. 409 when fewer units are available (or the row is missing).
 * Retried on deadlock and lock wait timeout like the service's TransactionRunner.
 */
async function allocate(pool: mysql.Pool, raw: string): Promise<[number, object]> {
  const { shortID, reference, wid, units, count } = stockBody(raw);
  if (typeof shortID !== 'string') throw new Refused(400, 'shortID is required');
  if (typeof reference !== 'string' || reference.length < 1 || reference.length > 64) throw new Refused(400, 'reference must be 1 to 64 characters');
  return retried(pool, (conn) => allocateOnce(conn, caseKey(shortID), wid, units, count, reference));
}

async function allocateOnce(conn: Queryable, shortIdKey: string, wid: number, units: number, count: bigint, reference: string): Promise<[number, object]> {
  await conn.query('START TRANSACTION');
  const [items] = (await conn.query('SELECT partNo, shortID FROM item WHERE shortIdKey = ? LOCK IN SHARE MODE', [shortIdKey])) as [Array<{ partNo: number; shortID: string }>, unknown];
  const item = items[0];
  if (!item) {
    await conn.query('ROLLBACK');
    throw new Refused(400, 'no such item');
  }
  const [levels] = (await conn.query('SELECT inStock, onHold, committed, packed FROM stock_level WHERE partNo = ? AND wID = ? FOR UPDATE', [item.partNo, wid])) as [
    Array<{ inStock: string; onHold: string; committed: string; packed: string }>,
    unknown,
  ];
  const level = levels[0];
  const exact = storedTenThousandths;
  const available = level ? exact(level.inStock) - exact(level.onHold) - exact(level.committed) - exact(level.packed) : 0n;
  if (count > available) {
    await conn.query('ROLLBACK');
    throw new Refused(409, 'insufficient stock');
  }
  const now = new Date();
  const [inserted] = (await conn.query(
    "INSERT INTO allocation (partNo, wID, reference, units, packed, shipped, state, expiresAt, created, modified) VALUES (?, ?, ?, ?, 0, 0, 'open', NULL, ?, ?)",
    [item.partNo, wid, reference, units, now, now],
  )) as [mysql.ResultSetHeader, unknown];
  await conn.query('UPDATE stock_level SET committed = committed + ?, modified = ? WHERE partNo = ? AND wID = ?', [units, now, item.partNo, wid]);
  await conn.query('INSERT INTO list_count (list, scope, slot, n) VALUES (?, ?, ?, 1) ON DUPLICATE KEY UPDATE n = n + VALUES(n)', ['allocations', String(wid), randomInt(COUNTER_SLOTS)]);
  await conn.query('COMMIT');
  const at = now.toISOString();
  const allocation = { id: inserted.insertId, itemID: item.shortID, partNo: item.partNo, wid, reference, units, packed: 0, shipped: 0, state: 'open', expiresAt: null, created: at, modified: at };
  return [201, { status: 'allocated', allocation }];
}

class ReceiveBody {
  @IsString()
  shortID: string;

  @IsInt()
  @Min(1)
  wid: number;

  @IsNumber({ maxDecimalPlaces: 4 })
  units: number;
}

/** (e): (d)'s transaction behind Nest's routing and validation, through TypeORM's query runner. */
function stackModule(dataSource: DataSource) {
  @Controller('receive')
  class StackReceiveController {
    @Post()
    @HttpCode(201)
    async receive(@Body() body: ReceiveBody): Promise<object> {
      for (let attempt = 1; ; attempt++) {
        const runner = dataSource.createQueryRunner();
        // mysql2's [rows] shape over TypeORM's query(), which answers the rows (or the result header) alone.
        const conn = { query: async (sql: string, params?: unknown[]) => [await runner.query(sql, params)] } as unknown as Queryable;
        try {
          await runner.connect();
          const [, answer] = await receiveOnce(conn, { shortIdKey: caseKey(body.shortID) }, body.wid, body.units);
          return answer;
        } catch (error) {
          await runner.query('ROLLBACK').catch(() => undefined);
          const errno = (error as { driverError?: { errno?: number } }).driverError?.errno;
          if (!(errno === 1213 || errno === 1205) || attempt >= MAX_ATTEMPTS) throw error;
          await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
        } finally {
          await runner.release();
        }
      }
    }
  }
  @Module({ controllers: [StackReceiveController] })
  class StackModule {}
  return StackModule;
}

async function stack(port: number, url: string): Promise<void> {
  // The service's session settings per pooled connection (READ COMMITTED included), from the first: src/database/session.ts.
  const dataSource = new DataSource({ type: 'mysql', driver: mysqlDriver(), url, poolSize: 10, timezone: 'Z', extra: { connectionLimit: 10 } });
  await dataSource.initialize();
  const app = await NestFactory.create(stackModule(dataSource), { logger: false });
  app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }));
  await app.listen(port, '127.0.0.1');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function raw(port: number, uri: string): Promise<void> {
  const pool = mysql.createPool({ uri, connectionLimit: 10, timezone: 'Z', trace: false });
  // The service's session settings per pooled connection (READ COMMITTED included), as it sets them.
  settingSessions(pool as unknown as Parameters<typeof settingSessions>[0]);
  // The caller's warehouses: the bench client has all of them.
  const [whs] = (await pool.query('SELECT wID FROM warehouse ORDER BY wID')) as [Array<{ wID: number }>, unknown];
  const wids = whs.map((w) => w.wID);
  createServer(async (req, res) => {
    try {
      if (req.method === 'GET' && req.url?.startsWith('/item/')) {
        const [rows] = await pool.query(
          'SELECT partNo, shortID, description, category, subCategory, uOM, putUp, units, dfltOwner, created, modified, discontinued, createdBy FROM item WHERE partNo = ?',
          [Number(req.url.slice('/item/'.length))],
        );
        const row = (rows as Array<Record<string, unknown>>)[0];
        sendJson(res, row ? 200 : 404, row ?? {});
        return;
      }
      const url = new URL(req.url ?? '/', 'http://ceiling.invalid');
      if (req.method === 'GET' && url.pathname === '/lots') {
        await lotPage(pool, wids, url, res);
      } else if (req.method === 'GET' && url.pathname === '/events') {
        await eventPage(pool, wids, url, res);
      } else if (req.method === 'POST' && url.pathname === '/receive') {
        const [status, body] = await receive(pool, await readBody(req));
        sendJson(res, status, body);
      } else if (req.method === 'POST' && url.pathname === '/issue') {
        const [status, body] = await issue(pool, await readBody(req));
        sendJson(res, status, body);
      } else if (req.method === 'POST' && url.pathname === '/allocate') {
        const [status, body] = await allocate(pool, await readBody(req));
        sendJson(res, status, body);
      } else {
        sendJson(res, 404, {});
      }
    } catch (error) {
      if (error instanceof Refused) sendJson(res, error.status, { message: error.message });
      else {
        process.stderr.write(`[ceiling] ${error instanceof Error ? error.message : String(error)}\n`);
        if (!res.headersSent) sendJson(res, 500, {});
      }
    }
  }).listen(port, '127.0.0.1');
}

async function main(): Promise<void> {
  const [kind, port, url] = process.argv.slice(2);
  if (kind === 'nest') {
    const app = await NestFactory.create(ConstantModule, { logger: false });
    await app.listen(Number(port), '127.0.0.1');
  } else if (kind === 'raw') {
    await raw(Number(port), url);
  } else if (kind === 'stack') {
    await stack(Number(port), url);
  } else {
    throw new Error('usage: ceilings.js nest|raw|stack <port> [mysql url]');
  }
  process.stdout.write('ready\n');
}

void main();
