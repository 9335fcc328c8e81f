import request from 'supertest';
import { DataSource } from 'typeorm';
import type { DatabaseTarget } from '../../src/config/config.js';
import { dataSourceOptions } from '../../src/database/data-source.js';
import { checkLedger, type LedgerReport } from '../../src/inventory/ledger-check.js';
import { createTestDatabase, startTestApp, type TestDatabase } from '../app.factory.js';
import { givenClient, type TestClient } from '../support/auth.js';

/**
 * A client-side log of inventory writes against running service processes,
 * and the check of that log against the database: what the clients were told
 * happened must be in the ledger exactly once, and nothing else may be.
 */

export type Operation = 'Receive' | 'Issue' | 'Move' | 'Batch';

/** One line of a batch: a Receive, Issue or Move body with its `op`. */
export type BatchLine = LineBody & { op: 'receive' | 'issue' | 'move' };
type LineBody = { itemID: string; units: number; wid: number; shipToWid?: number; reasonCode?: number };

export interface Answer {
  status: number;
  body: unknown;
  replayed: boolean;
}

export interface LoggedRequest {
  key: string;
  op: Operation;
  body: LineBody & { operations?: BatchLine[] };
  /** Every answer received for this key, in order (retries and replays included). */
  answers: Answer[];
  /** Attempts that got no answer (connection refused or reset). */
  lost: number;
}

export interface Target {
  url: string;
  token: string;
}

/**
 * A fresh database holding `clients` clients scoped to `wids` and the items,
 * made in-process; the tests then start the built service on it.
 */
export async function givenWorkloadDatabase(items: string[], wids: number[], clients = 1): Promise<{ db: TestDatabase; clients: TestClient[] }> {
  const db = await createTestDatabase();
  const t = await startTestApp({ database: db });
  try {
    const made: TestClient[] = [];
    for (let i = 0; i < clients; i++) made.push(await givenClient(t, { warehouses: wids }));
    for (const shortID of items) {
      const res = await request(t.http).post('/api/v1/Item').set('Authorization', made[0].bearer).send({ shortID });
      if (res.status !== 201) throw new Error(`item: ${res.status} ${res.text}`);
    }
    return { db, clients: made };
  } finally {
    await t.close();
  }
}

/** One POST with an Idempotency-Key; undefined when no answer came back. */
export async function send(target: Target, entry: LoggedRequest, timeoutMs = 20_000): Promise<Answer | undefined> {
  try {
    const res = await fetch(`${target.url}/api/v1/Inventory/${entry.op}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${target.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': entry.key },
      body: JSON.stringify(entry.op === 'Batch' ? { operations: entry.body.operations } : entry.body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text().catch(() => undefined);
    if (text === undefined) return undefined; // the connection broke while the body was on its way
    // An answer that is not JSON is kept as text, so that the checks see it rather than a lost answer.
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // left as text
    }
    return { status: res.status, body, replayed: res.headers.get('idempotent-replayed') === 'true' };
  } catch {
    return undefined; // refused, reset or timed out: no answer
  }
}

/**
 * Random writes on a few items in two warehouses: small receives, and issues
 * and moves that contend for them; with `batches`, a fifth are batches of 2 to
 * 6 such lines.
 */
export function randomRequest(key: string, items: string[], wids: number[], random: () => number = Math.random, batches = false): LoggedRequest {
  if (batches && random() < 0.2) {
    const lines = Array.from({ length: 2 + Math.floor(random() * 5) }, (_, i) => {
      const { op, body } = randomRequest(`${key}.${i}`, items, wids, random);
      return { ...body, op: op.toLowerCase() as BatchLine['op'] };
    });
    return { key, op: 'Batch', body: { itemID: '', units: 0, wid: 0, operations: lines }, answers: [], lost: 0 };
  }
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
  const wid = pick(wids);
  const itemID = pick(items);
  // Quarter units, so that decimal sums are exercised too.
  const units = (1 + Math.floor(random() * 16)) / 4;
  const roll = random();
  if (roll < 0.45) return { key, op: 'Receive', body: { itemID, units: units * 2, wid, reasonCode: 1 }, answers: [], lost: 0 };
  if (roll < 0.8) return { key, op: 'Issue', body: { itemID, units, wid, reasonCode: 2 }, answers: [], lost: 0 };
  const shipToWid = pick(wids.filter((w) => w !== wid));
  return { key, op: 'Move', body: { itemID, units, wid, shipToWid }, answers: [], lost: 0 };
}

/** How many requests ended with each status ("none": never answered). */
export function statuses(log: LoggedRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of log) {
    const key = String(finalAnswer(entry)?.status ?? 'none');
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/**
 * Answers a client sends again (the same key): still in flight elsewhere, a
 * lock conflict that gave up, or the database connection lost under it (503).
 * A 500, or any other answer, is final: a test that meets one fails.
 */
export function retryable(answer: Answer): boolean {
  const { error, message } = (answer.body ?? {}) as { error?: string; message?: string };
  if (answer.status === 503) return error === 'service_unavailable';
  if (answer.status !== 409) return false;
  return message === 'A request with this Idempotency-Key is still in progress.' || /retry it\.$/.test(message ?? '');
}

/** The answer that counts for a request: its first 2xx, else its last final answer, else its last. */
export function finalAnswer(entry: LoggedRequest): Answer | undefined {
  return entry.answers.find((a) => a.status < 300) ?? [...entry.answers].reverse().find((a) => !retryable(a)) ?? entry.answers[entry.answers.length - 1];
}

export function succeeded(entry: LoggedRequest): boolean {
  const answer = finalAnswer(entry);
  return answer !== undefined && answer.status < 300;
}

/**
 * Sends a request until it gets a final answer, as a client would: again after
 * a lost or retryable answer, waiting `pause(answer)` ms (undefined: lost).
 */
export async function settle(
  entry: LoggedRequest,
  target: () => Target,
  pause: (answer: Answer | undefined, attempt: number) => number,
  attempts = 60,
): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const answer = await send(target(), entry);
    if (answer) entry.answers.push(answer);
    else entry.lost++;
    if (answer && !retryable(answer)) return;
    await sleep(pause(answer, attempt));
  }
  throw new Error(`${entry.key} never settled: ${JSON.stringify(entry.answers.slice(-3))}`);
}

/**
 * Every request ended done or refused for the client's own reason (not
 * enough stock), and no answer on the way was a 5xx other than the 503 of a
 * lost database connection (and that only where `allow503`).
 */
export function expectSettled(log: LoggedRequest[], options: { allow503?: boolean } = {}): void {
  const unsettled = log
    .map((entry) => ({ key: entry.key, answer: finalAnswer(entry) }))
    .filter(({ answer }) => !(answer && (answer.status < 300 || (answer.status === 409 && /^Insufficient stock/.test((answer.body as { message?: string }).message ?? '')))))
    .map(({ key, answer }) => `${key}: ${answer ? `${answer.status} ${JSON.stringify(answer.body)}` : 'no answer'}`);
  expect(unsettled).toEqual([]);
  const serverErrors = log
    .flatMap((entry) => entry.answers.map((answer) => ({ key: entry.key, answer })))
    .filter(({ answer }) => answer.status >= 500 && !(options.allow503 && retryable(answer)))
    .map(({ key, answer }) => `${key}: ${answer.status} ${JSON.stringify(answer.body)}`);
  expect(serverErrors).toEqual([]);
}

interface LedgerRow {
  idempotencyKey: string | null;
  operationId: string;
  partNo: number;
  shortID: string;
  fromWid: number | null;
  toWid: number | null;
  units: string | number;
}

export interface Verdict {
  ledger: LedgerReport;
  /** Keys the clients were told succeeded whose ledger rows are missing or wrong. */
  missing: string[];
  /** Keys with rows of more than one operation. */
  duplicated: string[];
  /** Ledger rows for keys that never succeeded, or for no logged key at all. */
  unexpected: string[];
  /** Σ |expected − actual| over every item × warehouse, in units. */
  unitsOff: number;
  /** Item × warehouse pairs below zero. */
  negative: string[];
  /** How many requests succeeded and how many ledger rows they wrote. */
  succeeded: number;
  ledgerRows: number;
}

const tenThousandths = (units: string | number) => Math.round(Number(units) * 10_000);

/** The ledger invariant (and the stock counts) on a database the test does not hold open. */
export async function ledgerOf(target: DatabaseTarget): Promise<LedgerReport> {
  const db = new DataSource(dataSourceOptions(target));
  await db.initialize();
  try {
    return await checkLedger(db);
  } finally {
    await db.destroy();
  }
}

/**
 * Reads the database directly and compares it with the client log. Expected
 * stock per item × warehouse is what the successful answers add up to.
 */
export async function verify(target: DatabaseTarget, log: LoggedRequest[]): Promise<Verdict> {
  const db = new DataSource(dataSourceOptions(target));
  await db.initialize();
  try {
    const ledger = await checkLedger(db);
    const rows: LedgerRow[] = await db.query(
      'SELECT e.idempotencyKey AS idempotencyKey, e.operationId AS operationId, e.partNo AS partNo, i.shortID AS shortID, e.fromWid AS fromWid, e.toWid AS toWid, e.units AS units FROM ledger_entry e JOIN item i ON i.partNo = e.partNo',
    );
    const levels: Array<{ shortID: string; wID: number; inStock: string | number }> = await db.query(
      'SELECT i.shortID AS shortID, s.wID AS wID, s.inStock AS inStock FROM stock_level s JOIN item i ON i.partNo = s.partNo',
    );
    const byKey = new Map<string, LedgerRow[]>();
    const unexpected: string[] = [];
    for (const row of rows) {
      if (row.idempotencyKey === null) unexpected.push(`row without a key (operation ${row.operationId})`);
      else byKey.set(row.idempotencyKey, [...(byKey.get(row.idempotencyKey) ?? []), row]);
    }
    const expected = new Map<string, number>();
    const add = (shortID: string, wid: number, units: number) => expected.set(`${shortID}@${wid}`, (expected.get(`${shortID}@${wid}`) ?? 0) + units);
    const missing: string[] = [];
    const duplicated: string[] = [];
    let ok = 0;
    for (const entry of log) {
      const found = byKey.get(entry.key) ?? [];
      byKey.delete(entry.key);
      if (!succeeded(entry)) {
        if (found.length) unexpected.push(`${entry.key}: ${found.length} rows for a request that did not succeed`);
        continue;
      }
      ok++;
      // A batch is all its lines, each one operation with its own rows; a single request is one line.
      const lines: BatchLine[] = entry.body.operations ?? [{ ...entry.body, op: entry.op.toLowerCase() as BatchLine['op'] }];
      const answer = finalAnswer(entry)!.body as { lots?: unknown[]; results?: Array<{ lots?: unknown[] }> };
      const answers = answer.results ?? [answer];
      let units = 0;
      let rowsExpected = 0;
      for (const [i, line] of lines.entries()) {
        const n = tenThousandths(line.units);
        units += n;
        if (line.op === 'receive') add(line.itemID, line.wid, n);
        if (line.op === 'issue') add(line.itemID, line.wid, -n);
        if (line.op === 'move') {
          add(line.itemID, line.wid, -n);
          add(line.itemID, line.shipToWid ?? line.wid, n);
        }
        rowsExpected += line.op === 'receive' ? 1 : (answers[i]?.lots?.length ?? -1);
      }
      const itemIDs = new Set(lines.map((l) => l.itemID));
      const operations = new Set(found.map((r) => r.operationId));
      const moved = found.reduce((sum, r) => sum + tenThousandths(r.units), 0);
      if (operations.size > lines.length) duplicated.push(`${entry.key}: ${operations.size} operations for ${lines.length} lines`);
      else if (found.length !== rowsExpected || moved !== units || found.some((r) => !itemIDs.has(r.shortID))) {
        missing.push(`${entry.key}: ${found.length} rows moving ${moved / 10_000}, expected ${rowsExpected} moving ${units / 10_000}`);
      }
    }
    for (const [key, found] of byKey) unexpected.push(`${key}: ${found.length} rows for a key no client sent`);
    const actual = new Map(levels.map((l) => [`${l.shortID}@${l.wID}`, tenThousandths(l.inStock)]));
    let off = 0;
    for (const pair of new Set([...expected.keys(), ...actual.keys()])) off += Math.abs((expected.get(pair) ?? 0) - (actual.get(pair) ?? 0));
    return {
      ledger,
      missing,
      duplicated,
      unexpected,
      unitsOff: off / 10_000,
      negative: [...actual].filter(([, v]) => v < 0).map(([k, v]) => `${k}: ${v / 10_000}`),
      succeeded: ok,
      ledgerRows: rows.length,
    };
  } finally {
    await db.destroy();
  }
}

/** Asserts a verdict with everything a failure needs in its message. */
export function expectExact(verdict: Verdict): void {
  expect({
    ledgerMismatches: verdict.ledger.mismatches,
    countMismatches: verdict.ledger.countMismatches,
    listCountMismatches: verdict.ledger.listCountMismatches,
    missing: verdict.missing,
    duplicated: verdict.duplicated,
    unexpected: verdict.unexpected,
    unitsOff: verdict.unitsOff,
    negative: verdict.negative,
  }).toEqual({ ledgerMismatches: [], countMismatches: [], listCountMismatches: [], missing: [], duplicated: [], unexpected: [], unitsOff: 0, negative: [] });
  expect(verdict.ledger.ok).toBe(true);
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface FeedVerdict {
  /** Events read by following `next` from 0 on the service. */
  events: number;
  /** Seqs that were not 1, 2, 3, … in the order read, or read twice. */
  outOfOrder: string[];
  /** (operation, recNo) of ledger rows without their event, and of events without their ledger row. */
  withoutEvent: string[];
  withoutLedgerRow: string[];
}

/**
 * The event feed against the ledger, once every committed event has its seq
 * (the service's sweeper publishes what a killed instance left within a
 * second): the whole feed read by `next` must be seqs 1, 2, 3, … once each,
 * and its stock events must name exactly the ledger's rows, each once (an
 * event's lots are its operation's ledger rows; a Receive's, its one lot).
 * Item events are left out: the workload creates its items before it starts.
 */
export async function verifyFeed(service: Target, target: DatabaseTarget): Promise<FeedVerdict> {
  const db = new DataSource(dataSourceOptions(target));
  await db.initialize();
  try {
    const deadline = Date.now() + 10_000;
    while ((await db.query('SELECT COUNT(*) AS n FROM event WHERE seq IS NULL'))[0].n > 0 && Date.now() < deadline) await sleep(100);
    const events: Array<{ seq: number; type: string; data: { recNo?: number; lots?: Array<{ recNo: number }> } }> = [];
    for (let next = 0; ; ) {
      const res = await fetch(`${service.url}/api/v1/Events?after=${next}&limit=1000`, { headers: { Authorization: `Bearer ${service.token}` } });
      if (res.status !== 200) throw new Error(`events: ${res.status} ${await res.text()}`);
      const page = (await res.json()) as { value: typeof events; next: number; hasMore: boolean };
      events.push(...page.value);
      next = page.next;
      if (!page.hasMore) break;
    }
    const outOfOrder = events.flatMap((e, i) => (e.seq === i + 1 ? [] : [`#${i + 1} has seq ${e.seq}`]));
    const fromEvents = events.flatMap((e) => {
      if (!e.type.startsWith('stock.')) return [];
      const operation = LEDGER_OPERATION[e.type];
      return (e.data.lots?.map((l) => l.recNo) ?? [e.data.recNo]).map((recNo) => `${operation} ${recNo}`);
    });
    const rows: Array<{ operation: string; recNo: number }> = await db.query('SELECT operation, recNo FROM ledger_entry');
    const fromLedger = rows.map((r) => `${r.operation} ${Number(r.recNo)}`);
    return { events: events.length, outOfOrder, withoutEvent: missingFrom(fromLedger, fromEvents), withoutLedgerRow: missingFrom(fromEvents, fromLedger) };
  } finally {
    await db.destroy();
  }
}

/** The ledger's operation of each stock event type (a Count of no change has no lot to name: the workload sends none). */
const LEDGER_OPERATION: Record<string, string> = {
  'stock.received': 'receive',
  'stock.issued': 'issue',
  'stock.moved': 'move',
  'stock.held': 'hold',
  'stock.released': 'release',
  'stock.counted': 'count',
};

/** What `a` holds more often than `b` (multisets). */
function missingFrom(a: string[], b: string[]): string[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  return a.filter((x) => {
    const n = left.get(x) ?? 0;
    if (n) left.set(x, n - 1);
    return !n;
  });
}
