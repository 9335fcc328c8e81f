import request from 'supertest';
import { DataSource } from 'typeorm';
import type { DatabaseTarget } from '../../src/config/config.js';
import { dataSourceOptions } from '../../src/database/data-source.js';
import type { LedgerReport } from '../../src/inventory/ledger-check.js';
import { checkLedger } from '../../src/inventory/ledger-check.module.js';
import { createTestDatabase, startTestApp, type TestDatabase } from '../app.factory.js';
import { givenClient, type TestClient } from '../support/auth.js';

/**
 * A client-side log of inventory writes against running service processes,
 * and the check of that log against the database: what the clients were told
 * happened must be in the ledger exactly once, and nothing else may be; and
 * every allocation and expectation must be what the answers made of it.
 */

/** The requests: the stock changes, the stock documents' changes (the path names the document), and batches of both. */
export type Operation = 'Receive' | 'Issue' | 'Move' | 'Allocate' | 'Pack' | 'CancelAllocation' | 'Expect' | 'Ship' | 'CancelExpectation' | 'Batch';

type LineOp = 'receive' | 'issue' | 'move' | 'allocate' | 'pack' | 'cancelAllocation' | 'expect' | 'shipExpectation' | 'cancelExpectation';
/** One line of a batch: a request's body with its `op` (the batch's spelling of the operation). */
export type BatchLine = LineBody & { op: LineOp };
/**
 * A request's body; `allocationId` and `expectationId` name the document an
 * Issue or Receive is made against, or that a Pack, Cancel or Ship changes (sent in the path then).
 */
type LineBody = {
  itemID: string; units: number; wid: number; shipToWid?: number; reasonCode?: number;
  reference?: string; stage?: 'ordered' | 'shipped'; allocationId?: number; expectationId?: number;
  /** An Allocate's: when the service releases what is left unpacked (the Galera suite's expiry). */
  expiresAt?: string;
};

const LINE_OP: Record<Exclude<Operation, 'Batch'>, LineOp> = {
  Receive: 'receive', Issue: 'issue', Move: 'move', Allocate: 'allocate', Pack: 'pack', CancelAllocation: 'cancelAllocation',
  Expect: 'expect', Ship: 'shipExpectation', CancelExpectation: 'cancelExpectation',
};
/** The lines of a request: a batch's, or the one of a single request. */
const linesOf = (entry: LoggedRequest): BatchLine[] => entry.body.operations ?? [{ ...entry.body, op: LINE_OP[entry.op as Exclude<Operation, 'Batch'>] }];

/** The path under /api/v1/Inventory and the body a request sends. */
function requestOf(entry: LoggedRequest): { path: string; body: object } {
  const { allocationId, expectationId, units } = entry.body;
  switch (entry.op) {
    case 'Batch': return { path: 'Batch', body: { operations: entry.body.operations } };
    case 'Pack': return { path: `Allocations/${allocationId}/Pack`, body: { units } };
    case 'CancelAllocation': return { path: `Allocations/${allocationId}/Cancel`, body: {} };
    case 'Ship': return { path: `Expectations/${expectationId}/Ship`, body: {} };
    case 'CancelExpectation': return { path: `Expectations/${expectationId}/Cancel`, body: {} };
    default: return { path: entry.op, body: entry.body };
  }
}

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
    const { path, body: sent } = requestOf(entry);
    const res = await fetch(`${target.url}/api/v1/Inventory/${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${target.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': entry.key },
      body: JSON.stringify(sent),
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

/** A document the clients were told was made: its id, item and warehouse. */
interface KnownDocument {
  id: number;
  itemID: string;
  wid: number;
}

/**
 * The allocations and expectations the clients know of (from the answers to
 * Allocate and Expect), that the random requests change: a document is
 * forgotten once an answer says it is cancelled or closed.
 */
export class KnownDocuments {
  readonly allocations: KnownDocument[] = [];
  readonly expectations: KnownDocument[] = [];

  /** Takes in what a request's final answer tells: documents made, and documents no longer open. */
  learn(entry: LoggedRequest): void {
    const answer = finalAnswer(entry);
    if (!answer) return;
    const body = answer.body as { results?: unknown[]; details?: { reason?: string; allocationId?: number; expectationId?: number } } | null;
    if (answer.status === 409) {
      if (body?.details?.reason === 'allocation_closed') this.forget(this.allocations, body.details.allocationId);
      if (body?.details?.reason === 'expectation_closed') this.forget(this.expectations, body.details.expectationId);
      return;
    }
    if (answer.status >= 300) return;
    const results = (body?.results ?? [body]) as Array<{ allocation?: { id: number }; expectation?: { id: number } }>;
    for (const [i, line] of linesOf(entry).entries()) {
      const made = results[i];
      if (line.op === 'allocate' && made?.allocation) this.allocations.push({ id: made.allocation.id, itemID: line.itemID, wid: line.wid });
      if (line.op === 'expect' && made?.expectation) this.expectations.push({ id: made.expectation.id, itemID: line.itemID, wid: line.wid });
      if (line.op === 'cancelAllocation') this.forget(this.allocations, line.allocationId);
      if (line.op === 'cancelExpectation') this.forget(this.expectations, line.expectationId);
    }
  }

  private forget(list: KnownDocument[], id: number | undefined): void {
    const at = list.findIndex((d) => d.id === id);
    if (at >= 0) list.splice(at, 1);
  }
}

/**
 * Random writes on a few items in two warehouses: small receives, and issues
 * and moves that contend for them; with `batches`, a fifth are batches of 2 to
 * 6 such lines. With `documents`, about two in five are allocations and
 * expectations: made, packed, shipped, received and issued against, cancelled
 * (the ones known to be open, among the newest, the same ones contended for).
 */
export function randomRequest(key: string, items: string[], wids: number[], random: () => number = Math.random, batches = false, documents?: KnownDocuments): LoggedRequest {
  if (batches && random() < 0.2) {
    const lines = Array.from({ length: 2 + Math.floor(random() * 5) }, (_, i) => {
      const { op, body } = randomRequest(`${key}.${i}`, items, wids, random, false, documents);
      return { ...body, op: LINE_OP[op as Exclude<Operation, 'Batch'>] };
    });
    return { key, op: 'Batch', body: { itemID: '', units: 0, wid: 0, operations: lines }, answers: [], lost: 0 };
  }
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
  const wid = pick(wids);
  const itemID = pick(items);
  // Quarter units, so that decimal sums are exercised too.
  const units = (1 + Math.floor(random() * 16)) / 4;
  const entry = (op: Operation, body: LineBody): LoggedRequest => ({ key, op, body, answers: [], lost: 0 });
  if (documents && random() < 0.4) {
    const newest = (list: KnownDocument[]) => (list.length ? list[list.length - 1 - Math.floor(random() * Math.min(list.length, 12))] : undefined);
    const roll = random();
    const allocation = newest(documents.allocations);
    const expectation = newest(documents.expectations);
    if (roll < 0.2 || (roll < 0.5 && !allocation)) return entry('Allocate', { itemID, units: units * 2, wid, reference: key });
    if (roll < 0.5) {
      const { id: allocationId, itemID: item, wid: at } = allocation!;
      if (roll < 0.3) return entry('Pack', { itemID: item, units: units / 2, wid: at, allocationId });
      if (roll < 0.45) return entry('Issue', { itemID: item, units, wid: at, reasonCode: 2, allocationId });
      return entry('CancelAllocation', { itemID: item, units: 0, wid: at, allocationId });
    }
    if (roll < 0.7 || !expectation) return entry('Expect', { itemID, units: units * 2, wid, reference: key, stage: random() < 0.3 ? 'shipped' : 'ordered' });
    const { id: expectationId, itemID: item, wid: at } = expectation;
    if (roll < 0.78) return entry('Ship', { itemID: item, units: 0, wid: at, expectationId });
    if (roll < 0.95) return entry('Receive', { itemID: item, units, wid: at, reasonCode: 1, expectationId });
    return entry('CancelExpectation', { itemID: item, units: 0, wid: at, expectationId });
  }
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

/** A 409 for the client's own reason: not enough stock, or a document another request closed first. */
function ownReason(answer: Answer): boolean {
  const { message, details } = (answer.body ?? {}) as { message?: string; details?: { reason?: string } };
  return /^Insufficient stock/.test(message ?? '') || ['allocation_closed', 'expectation_closed'].includes(details?.reason ?? '');
}

/**
 * Every request ended done or refused for the client's own reason (not
 * enough stock, or a document already closed), and no answer on the way was a 5xx other than the 503 of a
 * lost database connection (and that only where `allow503`).
 */
export function expectSettled(log: LoggedRequest[], options: { allow503?: boolean } = {}): void {
  const unsettled = log
    .map((entry) => ({ key: entry.key, answer: finalAnswer(entry) }))
    .filter(({ answer }) => !(answer && (answer.status < 300 || (answer.status === 409 && ownReason(answer)))))
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
  /** Item × warehouse pairs whose inStock or available is below zero. */
  negative: string[];
  /** How many requests succeeded and how many ledger rows they wrote. */
  succeeded: number;
  ledgerRows: number;
  /** Allocations and expectations missing, doubled or unlike what the answers made of them, and stock-level figures unlike what is left on them. */
  documents: string[];
  /** How many documents the clients were told were made, and how many document changes succeeded. */
  documentsMade: number;
  documentChanges: number;
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
    const levels: Array<{ shortID: string; wID: number; inStock: string | number; onHold: string | number; committed: string | number; packed: string | number }> = await db.query(
      'SELECT i.shortID AS shortID, s.wID AS wID, s.inStock AS inStock, s.onHold AS onHold, s.committed AS committed, s.packed AS packed FROM stock_level s JOIN item i ON i.partNo = s.partNo',
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
      // The stock documents' own changes write no ledger rows.
      const all = linesOf(entry);
      const lines = all.filter((l) => l.op === 'receive' || l.op === 'issue' || l.op === 'move');
      const answer = finalAnswer(entry)!.body as { lots?: unknown[]; results?: Array<{ lots?: unknown[] }> };
      const answers = answer.results ?? [answer];
      let units = 0;
      let rowsExpected = 0;
      for (const line of lines) {
        const n = tenThousandths(line.units);
        units += n;
        if (line.op === 'receive') add(line.itemID, line.wid, n);
        if (line.op === 'issue') add(line.itemID, line.wid, -n);
        if (line.op === 'move') {
          add(line.itemID, line.wid, -n);
          add(line.itemID, line.shipToWid ?? line.wid, n);
        }
        rowsExpected += line.op === 'receive' ? 1 : (answers[all.indexOf(line)]?.lots?.length ?? -1);
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
    const documents = await documentsOf(db, log);
    return {
      ledger,
      ...documents,
      missing,
      duplicated,
      unexpected,
      unitsOff: off / 10_000,
      negative: [
        ...[...actual].filter(([, v]) => v < 0).map(([k, v]) => `${k}: inStock ${v / 10_000}`),
        // The workload sends no Count, the one operation that may leave available below 0: nothing else may.
        ...levels
          .map((l) => ({ pair: `${l.shortID}@${l.wID}`, available: tenThousandths(l.inStock) - tenThousandths(l.onHold) - tenThousandths(l.committed) - tenThousandths(l.packed) }))
          .filter((l) => l.available < 0)
          .map((l) => `${l.pair}: available ${l.available / 10_000}`),
      ],
      succeeded: ok,
      ledgerRows: rows.length,
    };
  } finally {
    await db.destroy();
  }
}

type Tally = Map<number, number>;
/** A DATETIME as read raw: a Date from MySQL/MariaDB, UTC text from SQLite ('2026-11-27 10:00:00.123'). */
const instantOf = (value: Date | string) => (value instanceof Date ? value.getTime() : Date.parse(`${value.replace(' ', 'T')}Z`));
const plus = (m: Tally, id: number | undefined, n: number) => m.set(id ?? 0, (m.get(id ?? 0) ?? 0) + n);

/**
 * The allocations and expectations against the log: one per successful
 * Allocate or Expect (found by its reference, the request's key), none for a
 * request that failed; its units as asked, its `shipped` (`received`) the sum
 * of the successful Issues (Receives) against it, cancelled exactly when one
 * Cancel succeeded, its packed units within what the Packs and Issues allow,
 * its state and stage what those make of it (an allocation with an
 * `expiresAt`, nothing packed or shipped, cancelled by no client and changed
 * last at or after its `expiresAt`: cancelled by the expiry, as if cancelled
 * once; one expired partly packed is not allowed for: no workload makes one);
 * and each stock level's
 * committed + packed and onOrder + aSN what is left on the open documents as
 * the answers tell it.
 */
async function documentsOf(db: DataSource, log: LoggedRequest[]): Promise<Pick<Verdict, 'documents' | 'documentsMade' | 'documentChanges'>> {
  type Made = { itemID: string; wid: number; units: number; stage?: string; expiresAt?: number };
  const made = { allocation: new Map<string, Made>(), expectation: new Map<string, Made>() };
  const packed: Tally = new Map();
  const shipped: Tally = new Map();
  const received: Tally = new Map();
  const cancelled = { allocation: new Map() as Tally, expectation: new Map() as Tally };
  const ships: Tally = new Map();
  let changes = 0;
  for (const entry of log.filter(succeeded)) {
    for (const line of linesOf(entry)) {
      const n = tenThousandths(line.units);
      if (line.op === 'allocate') made.allocation.set(line.reference!, { itemID: line.itemID, wid: line.wid, units: n, ...(line.expiresAt ? { expiresAt: Date.parse(line.expiresAt) } : {}) });
      else if (line.op === 'expect') made.expectation.set(line.reference!, { itemID: line.itemID, wid: line.wid, units: n, stage: line.stage ?? 'ordered' });
      else if (line.op === 'pack') plus(packed, line.allocationId, n);
      else if (line.op === 'issue' && line.allocationId) plus(shipped, line.allocationId, n);
      else if (line.op === 'receive' && line.expectationId) plus(received, line.expectationId, n);
      else if (line.op === 'cancelAllocation') plus(cancelled.allocation, line.allocationId, 1);
      else if (line.op === 'cancelExpectation') plus(cancelled.expectation, line.expectationId, 1);
      else if (line.op === 'shipExpectation') plus(ships, line.expectationId, 1);
      else continue;
      if (line.op !== 'allocate' && line.op !== 'expect') changes++;
    }
  }
  type Row = { id: number; shortID: string; wID: number; reference: string; units: string; packed?: string; shipped?: string; received?: string; stage?: string; state: string; modified: Date | string };
  const allocations: Row[] = await db.query(
    'SELECT a.id AS id, i.shortID AS shortID, a.wID AS wID, a.reference AS reference, a.units AS units, a.packed AS packed, a.shipped AS shipped, a.state AS state, a.modified AS modified FROM allocation a JOIN item i ON i.partNo = a.partNo',
  );
  const expectations: Row[] = await db.query(
    'SELECT e.id AS id, i.shortID AS shortID, e.wID AS wID, e.reference AS reference, e.units AS units, e.received AS received, e.stage AS stage, e.state AS state, e.modified AS modified FROM expectation e JOIN item i ON i.partNo = e.partNo',
  );
  const levels: Array<{ shortID: string; wID: number; committed: string; packed: string; onOrder: string; aSN: string }> = await db.query(
    'SELECT i.shortID AS shortID, s.wID AS wID, s.committed AS committed, s.packed AS packed, s.onOrder AS onOrder, s.aSN AS aSN FROM stock_level s JOIN item i ON i.partNo = s.partNo',
  );
  const problems: string[] = [];
  const doneUnitsOf = (row: Row) => tenThousandths((row.shipped ?? row.received)!);
  const left = { allocation: new Map<string, number>(), expectation: new Map<string, number>() };
  for (const [kind, rows] of [['allocation', allocations], ['expectation', expectations]] as const) {
    const seen = new Set<string>();
    for (const row of rows) {
      const id = Number(row.id);
      const what = `${kind} ${id} (${row.reference})`;
      const asked = made[kind].get(row.reference);
      if (!asked) {
        problems.push(`${what}: no successful request made it`);
        continue;
      }
      if (seen.has(row.reference)) problems.push(`${what}: made twice`);
      seen.add(row.reference);
      const units = tenThousandths(row.units);
      const doneUnits = doneUnitsOf(row);
      const expectedDone = (kind === 'allocation' ? shipped : received).get(id) ?? 0;
      // Expired: cancelled, by no client, with nothing packed or shipped, at or after its expiresAt (its last change, `modified`, is the expiry's own instant).
      const expired =
        kind === 'allocation' &&
        asked.expiresAt !== undefined &&
        row.state === 'cancelled' &&
        !cancelled.allocation.get(id) &&
        !(packed.get(id) ?? 0) &&
        doneUnitsOf(row) === 0 &&
        instantOf(row.modified) >= asked.expiresAt;
      const cancels = (cancelled[kind].get(id) ?? 0) + (expired ? 1 : 0);
      const state = cancels ? 'cancelled' : doneUnits >= units ? 'done' : 'open';
      const facts = { itemID: row.shortID, wid: Number(row.wID), units, done: doneUnits, cancels: Math.min(cancels, 1), state: row.state };
      const wanted = { itemID: asked.itemID, wid: asked.wid, units: asked.units, done: expectedDone, cancels, state };
      if (JSON.stringify(facts) !== JSON.stringify(wanted)) problems.push(`${what}: ${JSON.stringify(facts)}, the answers say ${JSON.stringify(wanted)}`);
      if (kind === 'allocation') {
        // An Issue ships packed units first: what is packed lies between the Packs less the shipped units and the Packs.
        const p = tenThousandths(row.packed!);
        const sum = packed.get(id) ?? 0;
        if (p > sum || p < sum - doneUnits) problems.push(`${what}: ${p / 10_000} packed, outside [${(sum - doneUnits) / 10_000}, ${sum / 10_000}]`);
      } else {
        const stage = asked.stage === 'shipped' || ships.get(id) ? 'shipped' : 'ordered';
        if (row.stage !== stage) problems.push(`${what}: stage ${row.stage}, the answers say ${stage}`);
      }
      const at = `${asked.itemID}@${asked.wid}`;
      if (state === 'open') left[kind].set(at, (left[kind].get(at) ?? 0) + Math.max(units - expectedDone, 0));
    }
    for (const reference of made[kind].keys()) if (!seen.has(reference)) problems.push(`${kind} ${reference}: answered as made, not in the database`);
  }
  const figures = new Map(levels.map((l) => [`${l.shortID}@${l.wID}`, l]));
  for (const at of new Set([...figures.keys(), ...left.allocation.keys(), ...left.expectation.keys()])) {
    const level = figures.get(at);
    const sum = (...xs: Array<string | undefined>) => xs.reduce((n, x) => n + tenThousandths(x ?? 0), 0);
    const actual = { outbound: sum(level?.committed, level?.packed), inbound: sum(level?.onOrder, level?.aSN) };
    const wanted = { outbound: left.allocation.get(at) ?? 0, inbound: left.expectation.get(at) ?? 0 };
    if (actual.outbound !== wanted.outbound || actual.inbound !== wanted.inbound) problems.push(`${at}: committed + packed, onOrder + aSN ${JSON.stringify(actual)}, the answers say ${JSON.stringify(wanted)} (ten-thousandths)`);
  }
  return { documents: problems, documentsMade: made.allocation.size + made.expectation.size, documentChanges: changes };
}

/** Asserts a verdict with everything a failure needs in its message. */
export function expectExact(verdict: Verdict): void {
  expect({
    ledgerMismatches: verdict.ledger.mismatches,
    countMismatches: verdict.ledger.countMismatches,
    listCountMismatches: verdict.ledger.listCountMismatches,
    documentMismatches: verdict.ledger.documentMismatches,
    documentStateMismatches: verdict.ledger.documentStateMismatches,
    documents: verdict.documents,
    missing: verdict.missing,
    duplicated: verdict.duplicated,
    unexpected: verdict.unexpected,
    unitsOff: verdict.unitsOff,
    negative: verdict.negative,
  }).toEqual({
    ledgerMismatches: [], countMismatches: [], listCountMismatches: [], documentMismatches: [], documentStateMismatches: [], documents: [], missing: [], duplicated: [], unexpected: [], unitsOff: 0, negative: [],
  });
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
  /** Event types of the documents' own changes whose count differs from the successful changes in the log: `type: events/changes`. */
  documentEvents: string[];
}

/**
 * The event feed against the ledger, once every committed event has its seq
 * (the service's sweeper publishes what a killed instance left within a
 * second): the whole feed read by `next` must be seqs 1, 2, 3, … once each,
 * and its ledger events must name exactly the ledger's rows, each once (an
 * event's lots are its operation's ledger rows; a Receive's, its one lot);
 * the events of the documents' own changes (allocated, packed, expected,
 * shipped, cancelled) must be as many, type by type, as the successful such
 * changes in `log`. Item events are left out: the workload creates its items before it starts.
 */
export async function verifyFeed(service: Target, target: DatabaseTarget, log: LoggedRequest[] = []): Promise<FeedVerdict> {
  const db = new DataSource(dataSourceOptions(target));
  await db.initialize();
  try {
    const deadline = Date.now() + 10_000;
    while ((await db.query('SELECT COUNT(*) AS n FROM event WHERE seq IS NULL'))[0].n > 0 && Date.now() < deadline) await sleep(100);
    const events: Array<{ seq: number; type: string; data: { recNo?: number; lots?: Array<{ recNo: number }>; expectation?: { id: number; stage: string } } }> = [];
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
      const operation = LEDGER_OPERATION[e.type];
      if (!operation) return [];
      return (e.data.lots?.map((l) => l.recNo) ?? [e.data.recNo]).map((recNo) => `${operation} ${recNo}`);
    });
    const rows: Array<{ operation: string; recNo: number }> = await db.query('SELECT operation, recNo FROM ledger_entry');
    const fromLedger = rows.map((r) => `${r.operation} ${Number(r.recNo)}`);
    // One event per successful change of a document (a replay makes none). A Ship changes an expectation once, the
    // first that succeeds on one expected as `ordered`: one shipped already (by a Ship, or so expected) answers the
    // same and records nothing. Each expectation's stage as expected is in its stock.expected event.
    const counts = new Map<string, [events: number, changes: number]>(Object.values(DOCUMENT_EVENT).map((type) => [type, [0, 0]]));
    for (const e of events) if (counts.has(e.type)) counts.get(e.type)![0]++;
    const expectedAs = new Map(events.filter((e) => e.type === 'stock.expected').map((e) => [e.data.expectation!.id, e.data.expectation!.stage]));
    const shipped = new Set<number>();
    for (const entry of log.filter(succeeded)) {
      for (const line of linesOf(entry)) {
        if (!DOCUMENT_EVENT[line.op]) continue;
        if (line.op === 'shipExpectation') {
          if (shipped.has(line.expectationId!) || expectedAs.get(line.expectationId!) !== 'ordered') continue;
          shipped.add(line.expectationId!);
        }
        counts.get(DOCUMENT_EVENT[line.op]!)![1]++;
      }
    }
    const documentEvents = [...counts].filter(([, [a, b]]) => a !== b).map(([type, [a, b]]) => `${type}: ${a}/${b}`);
    return { events: events.length, outOfOrder, withoutEvent: missingFrom(fromLedger, fromEvents), withoutLedgerRow: missingFrom(fromEvents, fromLedger), documentEvents };
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

/** The event of each change of a document that writes no ledger row (the hostile workloads, whose feed is checked with these, set no expiry: no `allocation.expired`; the Galera suite's expiry is checked on its own). */
const DOCUMENT_EVENT: Partial<Record<LineOp, string>> = {
  allocate: 'stock.allocated',
  pack: 'stock.packed',
  cancelAllocation: 'allocation.cancelled',
  expect: 'stock.expected',
  shipExpectation: 'expectation.shipped',
  cancelExpectation: 'expectation.cancelled',
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
