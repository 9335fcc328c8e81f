import { appendFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import request from 'supertest';
import { CONFLICT_REASONS } from '../../src/errors.js';
import { createTestDatabase, startTestApp, testDatabaseKind, type TestDatabase } from '../app.factory.js';
import { givenClient, givenWarehouses, type TestClient } from '../support/auth.js';
import { givenStock } from '../support/inventory.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { ledgerOf } from './workload.js';

/**
 * Fuzzing every endpoint of the built service, started as production starts
 * it, over real HTTP: fast-check builds requests from the
 * DTO rules and breaks them every way a client can (wrong types, missing and
 * extra fields, huge, negative and non-finite numbers, too many decimals,
 * unicode and very long strings, SQL- and script-like strings in every string
 * field, query parameter and path segment, text that is not well-formed (lone
 * surrogates, control and format characters), full-width look-alikes of
 * existing shortIDs, leading and trailing spaces, field names in any case and
 * one field sent in two spellings, repeated parameters, wrong content types,
 * truncated JSON). Every answer must be below 500, every error in the spec's
 * shape with no stack trace, no success may carry text that is not
 * well-formed, the service must log no error, and the ledger invariant must hold after.
 *
 * FUZZ_SEED=<n> replays a run (the seed is printed first); FUZZ_RUNS=<n> sets
 * the requests per endpoint; FUZZ_TRACE=<file> appends every request sent
 * with its status, one JSON line each.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SHORT_IDS = ['FUZZ-1', 'FUZZ-2', 'fuzz-3', 'FUZZ-4', 'FUZZ-5'];

// ---------------------------------------------------------------- values

/** DECISIONS "General": text that is not well-formed, look-alikes and edge spaces, in every string field. */
const illFormed = [
  'DUP\uD800', '\uDBFFX', 'X\uDC00', '\uDE00\uD83D', 'FUZZ-1\u200B', '\u200BFUZZ-1', 'FUZZ\u200D-1', '\u202EFUZZ-1', 'FUZZ-1\u200E',
  '\uFEFFFUZZ-1', 'FU\u00ADZZ-1', 'FUZZ\u0007', '\u0085', '\u2028', 'A\u{E0041}', 'ＦＵＺＺ-1', 'ｆｕｚｚ－２', 'Fuzz-３', 'ＦＵＺＺ-1 ',
  ' FUZZ-1', 'FUZZ-1\u00A0', '\u3000A', 'A1 ', ' A', 'a\uFE0F'.repeat(64), '\uFDFA'.repeat(4), 'Ä', 'K',
];

const nasty = [
  "' OR 1=1 --", "'; DROP TABLE item; --", '" OR ""="', '1; SELECT SLEEP(5)', "%' UNION SELECT clientId, secretHash FROM oauth_client --",
  '\\', '\\\\', '%', '%00', '\u0000', '\u0000abc', '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '${7*7}', '{{7*7}}',
  '../../etc/passwd', '..%2F..%2F', 'NaN', 'Infinity', '-Infinity', '-0', '1e309', '0x10', ' 5', '5 ', '1,5', '1.00001',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '😀', '\uD800', '\uDFFF', 'ＡＢＣ', 'İ', 'ß', 'Ä', '\u202e',
  '\r\n', '\t', ' ', '', 'null', 'true', '[]', '{}', 'ASC', 'DESC', 'asc; DROP', 'partNo', 'shortID', 'received', 'key', 'alias', 'id',
  '2026-13-45', '2026-02-30T25:61:00Z', '0000-00-00', '9999-12-31T23:59:59.999Z', '1970-01-01', 'yesterday', 'FUZZ-1', 'fuzz-1', 'FUZZ-1 ',
  ...illFormed,
];

const longString = fc.oneof(
  fc.integer({ min: 64, max: 70_000 }).map((n) => 'x'.repeat(n)),
  fc.tuple(fc.constantFrom(...nasty), fc.integer({ min: 10, max: 2_000 })).map(([s, n]) => s.repeat(n)),
);
const anyString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...nasty) },
  { weight: 3, arbitrary: fc.string({ maxLength: 80 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: longString },
);
const anyNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 1, 1.5, 1.23456, 0.00001, 0.0001, 99_999_999_999.9999, 100_000_000_000, 2 ** 31, 2 ** 31 - 1, -(2 ** 31), 2 ** 53 + 1, 1e308, -1e308, 5e-324, 1e21),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: anyString },
  { weight: 4, arbitrary: anyNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(fc.oneof(anyString, anyNumber), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(anyString, anyNumber), { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constant(JSON.parse('{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}') as unknown) },
);

/** A field: absent, a value the DTO accepts, or anything at all. */
const field = (valid: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 5, arbitrary: valid }, { weight: 4, arbitrary: anyValue });

const units = fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constantFrom(0.25, 0.0001, 1.5));
/** Full-width and other-case spellings of the seeded items: the same items (NFKC, case-insensitive). */
const LOOK_ALIKES = ['ｆｕｚｚ-1', 'ＦＵＺＺ-2', 'Ｆｕｚｚ－３', 'fuzz-4', 'ＦＵＺＺ-５'];
const validShortId = fc.oneof(fc.constantFrom(...SHORT_IDS), fc.constantFrom(...LOOK_ALIKES), fc.stringMatching(/^[A-Z][A-Z0-9-]{0,20}$/));
const wid = fc.constantFrom(1, 2, 3, 4);
/** What a sound write names: an item that exists, a warehouse in the client's scope. */
const knownItem = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SHORT_IDS) }, { weight: 1, arbitrary: fc.constantFrom(...LOOK_ALIKES) });
const scopedWid = fc.constantFrom(1, 2);
const smallInt = fc.integer({ min: 0, max: 10 });
const text = (max: number) => fc.oneof({ weight: 8, arbitrary: fc.string({ maxLength: max }) }, { weight: 1, arbitrary: fc.constantFrom(...illFormed) });

/** A field name as some client spells it (DECISIONS "General": matched case-insensitively). */
const spelling = (name: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(name) },
    { weight: 1, arbitrary: fc.constantFrom(name.toUpperCase(), name.toLowerCase(), name.charAt(0).toUpperCase() + name.slice(1)) },
  );

/** Field names in any case, and now and then one field sent again in another spelling (a validation_error). */
function respelled(b: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return b.chain((o) => {
    const keys = Object.keys(o);
    if (!keys.length) return fc.constant(o);
    const twice = fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...keys), anyValue) });
    return fc.tuple(fc.tuple(...keys.map(spelling)), twice).map(([names, again]) => {
      const entries: Array<[string, unknown]> = names.map((n, i) => [n, o[keys[i]]]);
      if (again) entries.push([again[0] === again[0].toUpperCase() ? again[0].toLowerCase() : again[0].toUpperCase(), again[1]]);
      return Object.fromEntries(entries);
    });
  });
}

/**
 * Fields of the request (DTO rules) plus fields no client may set. One body in
 * three keeps to the DTO (required fields valid and naming existing things,
 * optional ones valid or absent;
 * the fields no client may set still anything), so that the fuzz reaches the
 * real work and not only the refusals.
 */
function body(fields: Record<string, fc.Arbitrary<unknown>>, required: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<Record<string, unknown>> {
  const extra = fc.dictionary(
    fc.constantFrom('partNo', 'recNo', 'created', 'createdBy', 'modified', 'id', 'clientId', 'active', 'shipped', 'constructor', 'unknownField'),
    anyValue,
    { maxKeys: 3 },
  );
  const build = (sound: boolean) => {
    // Optional fields mostly absent: each selector given narrows the lots a Move or Issue can take.
    const soundField = (name: string, arb: fc.Arbitrary<unknown>) => required[name] ?? fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
    const entries = Object.entries(fields).map(([name, arb]) => (sound ? soundField(name, arb) : field(arb)).map((v) => [name, v] as const));
    return fc.tuple(fc.tuple(...entries), extra).map(([pairs, more]) => {
      const out: Record<string, unknown> = { ...more };
      for (const [name, v] of pairs) if (v !== undefined) out[name] = v;
      return out;
    });
  };
  return respelled(Object.keys(required).length ? fc.oneof({ weight: 2, arbitrary: build(false) }, { weight: 1, arbitrary: build(true) }) : build(false));
}

/** An allocation or expectation the service made: what a request naming one by its id names. */
interface KnownDocument {
  id: number;
  itemID: string;
  wid: number;
}
type DocumentKind = 'Allocation' | 'Expectation';
/** Filled before the fuzzing starts, and from every 201 of Allocate and Expect while it runs. */
const knownDocuments: Record<DocumentKind, KnownDocument[]> = { Allocation: [], Expectation: [] };
const knownDocument = (kind: DocumentKind) => fc.nat().map((i) => knownDocuments[kind][i % knownDocuments[kind].length]);
/** A document's id in a path: mostly one that exists (open, done or cancelled by now), else anything. */
const documentId = (kind: DocumentKind) => fc.oneof({ weight: 4, arbitrary: knownDocument(kind).map((d) => String(d.id)) }, { weight: 1, arbitrary: pathSegment });
/** An order line: 1 to 64 characters, no edge spaces. */
const reference = fc.stringMatching(/^[A-Z][A-Z0-9-]{0,30}$/);
const documentState = fc.constantFrom('open', 'done', 'cancelled', 'OPEN', 'closed');

// ---------------------------------------------------------------- requests

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Node's limit on a request line and headers, past which the service answers 431 before reading the rest. */
const HEAD_LIMIT = 16 * 1024;

/**
 * Sends a request whose head is over HEAD_LIMIT on a plain socket and reads
 * the answer whole. The service answers such a request 431 as soon as the
 * limit is passed and closes its side while the client may still be writing
 * the rest; fetch (undici) then fails on its write and drops the answer it
 * had received. Here write errors are ignored and the answer is read to the
 * end, so the service's answer is still what is checked.
 */
function sendOversized(base: string, req: FuzzRequest): Promise<{ status: number; contentType: string; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(20_000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(raw);
      if (!status) return reject(new Error(`no HTTP answer to an oversized request (${raw.length} bytes read)`));
      const split = raw.indexOf('\r\n\r\n');
      const head = raw.slice(0, split);
      resolve({ status: Number(status[1]), contentType: /\r\ncontent-type: *([^\r\n]*)/i.exec(head)?.[1] ?? '', text: raw.slice(split + 4) });
    });
    const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.write(`${req.method} ${req.path} HTTP/1.1\r\nHost: ${url.host}\r\n${headers}Connection: close\r\n\r\n`);
    if (req.body !== undefined) socket.write(req.body);
  });
}

/** Whether a request's line and headers exceed HEAD_LIMIT (what the service answers 431). */
const oversizedHead = (req: FuzzRequest) =>
  Buffer.byteLength(`${req.method} ${req.path} HTTP/1.1\r\n`) + Object.entries(req.headers).reduce((n, [k, v]) => n + Buffer.byteLength(`${k}: ${v}\r\n`), 0) > HEAD_LIMIT;

/** Encodes a value for a URL, whatever it is (lone surrogates included). */
const enc = (v: unknown) => encodeURIComponent(asText(v).replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
/** Any value as text: objects (null-prototype ones too) as JSON. */
function asText(v: unknown): string {
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}
/** A body's fields as a form, every value as text. */
const form = (v: object) => new URLSearchParams(Object.entries(v).map(([k, x]): [string, string] => [k, asText(x)])).toString();

const pathSegment = fc.oneof(
  { weight: 3, arbitrary: anyValue.map(enc) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '%2e%2e', '%2F', '%00', '1%20', '0', '-1', '1.5', '1e3', '2147483648', '99999999999999999999') },
);

/** Text shaped like a list cursor (base64url JSON, a dot, a 22-character MAC) or a piece of one: never a valid one. */
const base64url = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), maxLength: 300 });
/** Cursors the service really gave (filled before the fuzzing starts), sent as they are or with one character changed. */
const realCursors: string[] = [];
const realCursor = fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('A', 'b', '-', '_', '.', '%', '')).map(([i, at, c]) => {
  const cursor = realCursors[i % Math.max(realCursors.length, 1)] ?? '';
  return at % 3 === 0 ? cursor : cursor.slice(0, at % cursor.length) + c + cursor.slice((at % cursor.length) + 1);
});
const cursorLike = fc.oneof(
  realCursor,
  fc.tuple(base64url, fc.string({ unit: fc.constantFrom(...'AZaz09-_'), minLength: 22, maxLength: 22 })).map(([b, m]) => `${b}.${m}`),
  fc.jsonValue().map((v) => `${Buffer.from(JSON.stringify(v)).toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA`),
  fc.constantFrom('eyJ2IjoxLCJwIjoyfQ.AAAAAAAAAAAAAAAAAAAAAA', '.', '..', 'a.', '.b', 'eyJ2Ijox', 'x'.repeat(5000)),
  base64url,
);

/** A query string: known parameters in any case, hostile values, repeats, malformed encodings. */
function query(names: string[], valid: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<string> {
  const known = [...names, 'page', 'pageSize', 'sort', 'direction', 'modifiedSince', 'cursor'];
  const pageValid: Record<string, fc.Arbitrary<unknown>> = {
    page: fc.integer({ min: 1, max: 5 }),
    pageSize: fc.integer({ min: 1, max: 300 }),
    sort: fc.constantFrom('shortID', 'partNo', 'received', 'recNo', 'inStock', 'created', 'id', 'modified'),
    direction: fc.constantFrom('ASC', 'DESC', 'asc', 'desc'),
    modifiedSince: fc.constantFrom('2020-01-01', '2020-01-01T00:00:00Z'),
    cursor: cursorLike,
    ...valid,
  };
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.constantFrom(...known).map((n) => (n === n.toUpperCase() ? n.toLowerCase() : n.toUpperCase())) },
    { weight: 1, arbitrary: fc.constantFrom('page[$gt]', 'pageSize[]', 'sort[0]', '__proto__', 'constructor[prototype]', '', '%zz') },
  );
  const pair = name.chain((n) =>
    fc
      .oneof({ weight: 2, arbitrary: Object.hasOwn(pageValid, n) ? pageValid[n] : anyValue }, { weight: 3, arbitrary: anyValue })
      .map((v) => `${enc(n).replace(/%25zz/, '%zz')}=${enc(v)}`),
  );
  const raw = fc.constantFrom('page=%zz', 'key=%', 'pageSize=1&pageSize=2', 'sort=partNo;DROP', '&&&', '=', 'page', 'key=%E0%A4%A');
  return fc.array(fc.oneof({ weight: 5, arbitrary: pair }, { weight: 1, arbitrary: raw }), { maxLength: 6 }).map((ps) => (ps.length ? `?${ps.join('&')}` : ''));
}

/** A body in JSON, or broken: truncated, not an object, another content type, too deep, too big. */
function encoded(value: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<{ body?: string | Buffer; type?: string }> {
  return fc.oneof(
    { weight: 12, arbitrary: value.map((v) => ({ body: JSON.stringify(v), type: 'application/json' })) },
    { weight: 2, arbitrary: fc.tuple(value, fc.nat()).map(([v, n]) => { const s = JSON.stringify(v); return { body: s.slice(0, n % Math.max(s.length, 1)), type: 'application/json' }; }) },
    { weight: 1, arbitrary: fc.constantFrom('[]', '[{}]', '"text"', '42', 'null', 'true', '', '{"a":', '{"units":1e999}', '{"units":-0}', '{"a":1,"a":2}').map((b) => ({ body: b, type: 'application/json' })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(value, fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded', 'application/octet-stream'))
        .map(([v, type]) => ({ body: JSON.stringify(v), type })),
    },
    { weight: 1, arbitrary: value.map((v) => ({ body: form(v), type: 'application/x-www-form-urlencoded' })) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((depth) => ({ body: '{"a":'.repeat(depth) + '1' + '}'.repeat(depth), type: 'application/json' })) },
    { weight: 1, arbitrary: fc.constant(undefined).map(() => ({})) },
  );
}

/** Headers: mostly the right token, sometimes none, a forged one or garbage; hostile keys and request ids. */
function headers(bearer: () => string): fc.Arbitrary<Record<string, string>> {
  const latin1 = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength: 300 });
  const auth = fc.oneof(
    { weight: 12, arbitrary: fc.constant('valid') },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', 'Basic Zm9vOmJhcg==', 'bearer x', `Bearer ${'A'.repeat(8000)}`) },
    { weight: 1, arbitrary: latin1.map((s) => `Bearer ${s}`) },
  );
  return fc
    .record({ auth, key: fc.option(fc.oneof(fc.uuid(), latin1), { freq: 3 }), id: fc.option(latin1, { freq: 3 }) })
    .map(({ auth, key, id }) => {
      const out: Record<string, string> = {};
      if (auth === 'valid') out.Authorization = bearer();
      else if (auth) out.Authorization = auth;
      if (key !== null) out['Idempotency-Key'] = key;
      if (id !== null) out['X-Request-Id'] = id;
      return out;
    });
}

interface Endpoint {
  name: string;
  request: fc.Arbitrary<FuzzRequest>;
}

function endpoints(bearer: () => string, client: () => TestClient): Endpoint[] {
  const h = headers(bearer);
  const get = (name: string, path: fc.Arbitrary<string>, q: fc.Arbitrary<string>): Endpoint => ({
    name,
    request: fc.tuple(path, q, h).map(([p, qs, hd]) => ({ method: 'GET', path: `${p}${qs}`, headers: hd })),
  });
  const send = (name: string, method: string, path: fc.Arbitrary<string>, b: fc.Arbitrary<Record<string, unknown>>): Endpoint => ({
    name,
    request: fc.tuple(path, encoded(b), h).map(([p, e, hd]) => ({
      method,
      path: p,
      headers: { ...hd, ...(e.type ? { 'Content-Type': e.type } : {}) },
      body: e.body,
    })),
  });
  const at = (p: string) => fc.constant(`/api/v1/${p}`);
  const itemFields = {
    description: text(255), category: smallInt, categoryID: smallInt, subCategory: smallInt, uOM: fc.constantFrom('EA', 'KG'), unit: fc.constantFrom('M'),
    putUp: text(100), units, dfltOwner: smallInt, discontinued: fc.boolean(), active: fc.boolean(),
  };
  const writeFields = { itemID: validShortId, wid, serial: text(64), serial2: text(64), rfidTag: text(64), reference: text(100), units };
  const token = fc
    .record({
      grant_type: field(fc.constant('client_credentials')),
      client_id: field(fc.constant('valid')),
      client_secret: field(fc.constant('valid')),
      basic: fc.boolean(),
    })
    .chain((r) => {
      const c = client();
      const fix = (v: unknown, real: string) => (v === 'valid' ? real : v);
      const fields: Record<string, unknown> = { grant_type: r.grant_type, client_id: fix(r.client_id, c.clientId), client_secret: fix(r.client_secret, c.clientSecret) };
      for (const k of Object.keys(fields)) if (fields[k] === undefined) delete fields[k];
      return fc.tuple(encoded(fc.constant(fields)), fc.constant(r.basic), fc.constantFrom('form', 'json'));
    })
    .map(([e, basic, as]) => {
      const c = client();
      const hd: Record<string, string> = {};
      if (basic) hd.Authorization = `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`;
      let b = e.body;
      let type = e.type;
      if (as === 'form' && type === 'application/json' && typeof b === 'string') {
        try {
          const parsed = JSON.parse(b) as Record<string, unknown>;
          b = form(parsed);
          type = 'application/x-www-form-urlencoded';
        } catch {
          // broken JSON stays as it is
        }
      }
      return { method: 'POST', path: '/api/v1/Token', headers: { ...hd, ...(type ? { 'Content-Type': type } : {}) }, body: b };
    });

  return [
    { name: 'POST /Token', request: token },
    get('GET /Item', at('Item'), query(['key', 'type', 'Category'], { key: validShortId, type: fc.constantFrom('id', 'alias', 'ID'), Category: smallInt })),
    get('GET /Item/All', at('Item/All'), query([])),
    get('GET /Item/<partNo>', fc.oneof(fc.integer({ min: 1, max: 8 }).map(String), pathSegment).map((p) => `/api/v1/Item/${p}`), query([])),
    send('POST /Item', 'POST', at('Item'), body({ shortID: validShortId, ...itemFields }, { shortID: validShortId })),
    send('PUT /Item', 'PUT', at('Item'), body({ shortID: validShortId, ...itemFields }, { shortID: validShortId })),
    {
      name: 'DELETE /Item/<shortID>',
      request: fc.tuple(fc.oneof(fc.stringMatching(/^[A-Z]{1,8}-X$/), pathSegment), h).map(([p, hd]) => ({ method: 'DELETE', path: `/api/v1/Item/${p}`, headers: hd })),
    },
    get('GET /Inventory', at('Inventory'), query(['itemID'], { itemID: validShortId })),
    get('GET /Inventory/<wid>', fc.oneof(wid.map(String), pathSegment).map((p) => `/api/v1/Inventory/${p}`), query(['itemID'], { itemID: validShortId })),
    get('GET /Inventory/StockLevels', at('Inventory/StockLevels'), query([])),
    get('GET /Inventory/StockLevels/<wid>', fc.oneof(wid.map(String), pathSegment).map((p) => `/api/v1/Inventory/StockLevels/${p}`), query([])),
    get('GET /Inventory/Transactions', at('Inventory/Transactions'), query(['itemID'], { itemID: validShortId })),
    get(
      'GET /Events',
      at('Events'),
      query(['after', 'limit', 'types'], {
        after: fc.integer({ min: 0, max: 50 }),
        limit: fc.integer({ min: 1, max: 1000 }),
        types: fc.constantFrom('stock.*', 'item.*', 'stock.received,item.created', 'stock.sold', 'stock.*,'),
      }),
    ),
    send('POST /Inventory/Receive', 'POST', at('Inventory/Receive'), body({
      ...writeFields, reasonCode: smallInt, spot: text(64), remark: text(255), netWeight: units, grossWeight: units, price: units,
      expires: fc.constantFrom('2030-01-01', '2030-01-01T10:00:00Z'), supplier: smallInt, line: smallInt, jobid: smallInt, hold: fc.boolean(),
      expectationId: fc.integer({ min: 1, max: 60 }),
    }, { itemID: knownItem, units, wid: scopedWid, reasonCode: smallInt })),
    // Allocations: made, packed, shipped by an Issue against one, cancelled; then listed. Before the Moves, Issues and
    // Counts below take the stock down: Allocate takes only available units.
    send('POST /Inventory/Allocate', 'POST', at('Inventory/Allocate'), body({
      ...writeFields, reference, expiresAt: fc.constantFrom(new Date(Date.now() + 86_400_000).toISOString(), '2020-01-01T00:00:00Z', '2099-01-01', 'soon'),
    }, { itemID: knownItem, units, wid: scopedWid, reference })),
    send('POST /Inventory/Allocations/<id>/Pack', 'POST', documentId('Allocation').map((id) => `/api/v1/Inventory/Allocations/${id}/Pack`), body({ units }, { units })),
    send('POST /Inventory/Issue allocationId', 'POST', at('Inventory/Issue'), knownDocument('Allocation').chain((d) => body({
      ...writeFields, reasonCode: smallInt, spot: text(64), allocationId: fc.oneof(fc.constant(d.id), fc.integer({ min: 1, max: 2 ** 31 - 1 })),
    }, { itemID: fc.constant(d.itemID), units, wid: fc.constant(d.wid), reasonCode: smallInt, allocationId: fc.constant(d.id) }))),
    send('POST /Inventory/Allocations/<id>/Cancel', 'POST', documentId('Allocation').map((id) => `/api/v1/Inventory/Allocations/${id}/Cancel`), body({})),
    get('GET /Inventory/Allocations', at('Inventory/Allocations'), query(['itemID', 'reference', 'state'], { itemID: validShortId, reference, state: documentState })),
    get('GET /Inventory/Allocations/<wid>', fc.oneof(wid.map(String), pathSegment).map((p) => `/api/v1/Inventory/Allocations/${p}`), query(['itemID', 'state'], { itemID: validShortId, state: documentState })),
    get('GET /Inventory/Allocation/<id>', documentId('Allocation').map((id) => `/api/v1/Inventory/Allocation/${id}`), query([])),
    // Expectations: made, shipped, received against, cancelled; then listed.
    send('POST /Inventory/Expect', 'POST', at('Inventory/Expect'), body({
      ...writeFields, reference, stage: fc.constantFrom('ordered', 'shipped', 'SHIPPED', 'received'), due: fc.constantFrom('2020-01-01', '2030-01-01T10:00:00Z', 'later'),
    }, { itemID: knownItem, units, wid: scopedWid, reference })),
    send('POST /Inventory/Expectations/<id>/Ship', 'POST', documentId('Expectation').map((id) => `/api/v1/Inventory/Expectations/${id}/Ship`), body({})),
    send('POST /Inventory/Receive expectationId', 'POST', at('Inventory/Receive'), knownDocument('Expectation').chain((d) => body({
      ...writeFields, reasonCode: smallInt, spot: text(64), expectationId: fc.oneof(fc.constant(d.id), fc.integer({ min: 1, max: 2 ** 31 - 1 })),
    }, { itemID: fc.constant(d.itemID), units, wid: fc.constant(d.wid), reasonCode: smallInt, expectationId: fc.constant(d.id) }))),
    send('POST /Inventory/Expectations/<id>/Cancel', 'POST', documentId('Expectation').map((id) => `/api/v1/Inventory/Expectations/${id}/Cancel`), body({})),
    get('GET /Inventory/Expectations', at('Inventory/Expectations'), query(['itemID', 'reference', 'state'], { itemID: validShortId, reference, state: documentState })),
    get('GET /Inventory/Expectations/<wid>', fc.oneof(wid.map(String), pathSegment).map((p) => `/api/v1/Inventory/Expectations/${p}`), query(['itemID', 'state'], { itemID: validShortId, state: documentState })),
    get('GET /Inventory/Expectation/<id>', documentId('Expectation').map((id) => `/api/v1/Inventory/Expectation/${id}`), query([])),
    send('POST /Inventory/Move', 'POST', at('Inventory/Move'), body({
      ...writeFields, fromSpot: fc.oneof(fc.constant('A'), text(64)), toSpot: text(64), shipToWid: wid, transitSlip: text(64), recno: fc.integer({ min: 1, max: 60 }),
      received: fc.constantFrom('2026-11-22', new Date().toISOString().slice(0, 10)),
    }, { itemID: knownItem, units, wid: scopedWid })),
    send('POST /Inventory/Issue', 'POST', at('Inventory/Issue'), body({
      ...writeFields, reasonCode: smallInt, spot: text(64), remark: text(255), netWeight: units, shipto: smallInt, prodID: text(64),
      recno: fc.integer({ min: 1, max: 60 }), line: smallInt, allocationId: fc.integer({ min: 1, max: 60 }),
    }, { itemID: knownItem, units, wid: scopedWid, reasonCode: smallInt })),
    ...(['Hold', 'Release'] as const).map((op) =>
      send(`POST /Inventory/${op}`, 'POST', at(`Inventory/${op}`), body({
        ...writeFields, reasonCode: smallInt, spot: fc.oneof(fc.constant('A'), text(64)), remark: text(255), recno: fc.integer({ min: 1, max: 60 }),
      }, { itemID: knownItem, wid: scopedWid, reasonCode: smallInt })),
    ),
    send('POST /Inventory/Count', 'POST', at('Inventory/Count'), body({
      ...writeFields, counted: units, expected: units, reasonCode: smallInt, spot: fc.oneof(fc.constant('A'), text(64)), remark: text(255),
    }, { itemID: knownItem, wid: scopedWid, counted: units, reasonCode: smallInt })),
    {
      // Batches of fuzzed lines: unknown ops, non-objects, nested batches, 0 and 251 lines; 250 lines elsewhere (batch.e2e-spec.ts).
      name: 'POST /Inventory/Batch',
      request: fc
        .tuple(
          fc.oneof(
            fc.array(
              fc.record({
                op: fc.constantFrom('receive', 'issue', 'move', 'hold', 'release', 'count', 'allocate', 'pack', 'cancelAllocation', 'expect', 'shipExpectation', 'cancelExpectation', 'batch', 'RECEIVE', 'Pack', ''),
                itemID: knownItem, units, counted: units, wid: scopedWid, reasonCode: smallInt, reference,
                allocationId: fc.oneof(knownDocument('Allocation').map((d) => d.id), anyNumber), expectationId: fc.oneof(knownDocument('Expectation').map((d) => d.id), anyNumber),
              }, { requiredKeys: ['op'] }),
              { minLength: 1, maxLength: 5 },
            ),
            fc.constantFrom([], Array(251).fill({ op: 'receive' }), [null], [[]], ['x'], [{ op: 'batch', operations: [{ op: 'receive' }] }], [{ __proto__: { op: 'receive' } }]),
            fc.anything(),
          ),
          h,
        )
        .map(([operations, hd]) => ({ method: 'POST', path: '/api/v1/Inventory/Batch', headers: { ...hd, 'Content-Type': 'application/json' }, body: JSON.stringify({ operations }) })),
    },
    get('GET /health', fc.constant('/health'), query([])),
    get('GET /api/v1/openapi.json', at('openapi.json'), query([])),
    {
      name: 'unknown routes and methods',
      request: fc
        .tuple(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), fc.constantFrom('/api/v1/Item/All/x', '/api/v1/Inventory/Receive', '/api/v1/Token', '/api/v2/Item', '/api/v1/', '/', '/api/v1/Inventory/StockLevels/1/2', '/api/v1/Inventory/Allocate', '/api/v1/Inventory/Allocations/1/Pack', '/api/v1/Inventory/Expectation/1'), fc.option(pathSegment), h)
        .map(([method, p, seg, hd]) => ({ method, path: seg === null ? p : `${p}/${seg}`, headers: hd })),
    },
  ];
}

// ---------------------------------------------------------------- checks

const ERROR_KEYS = ['details', 'error', 'message', 'statusCode'];

/** No string anywhere in a value holds a control or format character or a lone surrogate: nothing such was ever stored. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return !/[\p{Cc}\p{Cf}\p{Cs}]/u.test(value);
  if (typeof value !== 'object' || value === null) return true;
  return Object.entries(value).every(([k, v]) => wellFormed(k) && wellFormed(v));
}

/** What every answer must be: no 5xx, JSON, errors in the spec's shape, no stack trace. */
function problems(method: string, status: number, contentType: string, text: string, data = true): string[] {
  const out: string[] = [];
  if (status >= 500) out.push(`status ${status}`);
  if (/\n\s+at |node_modules|\.ts:\d+|\bError: /.test(text)) out.push('looks like a stack trace');
  if (!text) {
    if (status >= 400 && method !== 'HEAD') out.push('error without a body');
    return out;
  }
  if (!contentType.startsWith('application/json')) {
    out.push(`content-type ${contentType}`);
    return out;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [...out, 'body is not JSON'];
  }
  // The OpenAPI document is prose (its descriptions hold line breaks), not stored data.
  if (data && status < 300 && !wellFormed(parsed)) out.push('a success carries text that is not well-formed');
  if (status >= 400 && status !== 429) {
    const e = parsed as Record<string, unknown>;
    if (Object.keys(e).sort().join() !== ERROR_KEYS.join()) out.push(`error keys ${Object.keys(e).join()}`);
    if (e.statusCode !== status) out.push(`statusCode ${String(e.statusCode)}`);
    if (typeof e.error !== 'string' || !/^[a-z_]+$/.test(e.error)) out.push(`error ${String(e.error)}`);
    if (typeof e.message !== 'string' || !e.message) out.push('no message');
    const d = e.details;
    if (status === 409) {
      // DECISIONS "Conflicts": every 409 names its reason, with the figures (numbers, strings, null) its message names.
      const c = d as Record<string, unknown> | null;
      const conflictOk =
        typeof c === 'object' && c !== null && (CONFLICT_REASONS as readonly unknown[]).includes(c.reason) && Object.values(c).every((v) => v === null || ['string', 'number'].includes(typeof v));
      if (!conflictOk) out.push('a 409 without a known reason in details');
    } else {
      const detailsOk = d === null || (typeof d === 'object' && Object.values(d as object).every((m) => Array.isArray(m) && m.every((x) => typeof x === 'string')));
      if (!detailsOk) out.push('details not null or field → messages');
    }
  }
  return out;
}

describe(`fuzzing every endpoint on ${testDatabaseKind()}`, () => {
  let db: TestDatabase;
  let service: ServiceProcess | undefined;
  let base: string;
  let client: TestClient;
  const tally = new Map<string, { sent: number; ok: number; statuses: Set<number> }>();

  beforeAll(async () => {
    // Clients, items and stock are made in-process; the requests then go to
    // the built service in a process of its own, as production runs it.
    db = await createTestDatabase();
    const t = await startTestApp({ database: db });
    await givenWarehouses(t, 1, 2, 3);
    client = await givenClient(t, { warehouses: [1, 2] });
    for (const shortID of SHORT_IDS) {
      const res = await request(t.http).post('/api/v1/Item').set('Authorization', client.bearer).send({ shortID });
      if (res.status !== 201) throw new Error(`item: ${res.status} ${res.text}`);
      for (const w of [1, 2]) await givenStock(t, client.bearer, { itemID: shortID, units: 1000, wid: w, spot: 'A' });
    }
    // Open documents on every item in both warehouses, for the requests that name one by id.
    for (const shortID of SHORT_IDS) {
      for (const w of [1, 2]) {
        for (const [kind, path, units] of [['Allocation', 'Allocate', 40], ['Expectation', 'Expect', 1000]] as const) {
          const res = await request(t.http).post(`/api/v1/Inventory/${path}`).set('Authorization', client.bearer).send({ itemID: shortID, wid: w, units, reference: `FUZZ-${path}-${shortID}-${w}` });
          if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
          knownDocuments[kind].push({ id: res.body[kind.toLowerCase()].id, itemID: shortID, wid: w });
        }
      }
    }
    for (const list of ['Item', 'Item/All?sort=partNo', 'Inventory', 'Inventory/1?sort=units', 'Inventory/StockLevels?sort=available', 'Inventory/Transactions', 'Inventory/Allocations', 'Inventory/Expectations/1?sort=modified']) {
      const res = await request(t.http).get(`/api/v1/${list}${list.includes('?') ? '&' : '?'}pageSize=1`).set('Authorization', client.bearer);
      const next = /<([^>]+)>; rel="next"/.exec(res.headers.link ?? '')?.[1];
      if (next) realCursors.push(new URL(next, 'http://x').searchParams.get('cursor') ?? '');
    }
    await t.close();
    service = await startService({ DATABASE_URL: db.url });
    base = service.url;
    process.stdout.write(`fuzz (${testDatabaseKind()}): seed ${SEED}, ${RUNS} requests per endpoint; rerun with FUZZ_SEED=${SEED}\n`);
  });

  afterAll(async () => {
    const total = [...tally.values()].reduce((n, x) => n + x.sent, 0);
    const lines = [...tally].map(([name, x]) => `  ${name}: ${x.sent} sent, ${x.ok} 2xx, statuses ${[...x.statuses].sort().join(' ')}`);
    process.stdout.write(`fuzz (${testDatabaseKind()}): ${total} requests\n${lines.join('\n')}\n`);
    await service?.kill('SIGTERM');
    await db?.drop();
  });

  for (const endpoint of endpoints(() => client.bearer, () => client)) {
    it(`${endpoint.name}: no 5xx, every error in the spec's shape`, async () => {
      const seen = { sent: 0, ok: 0, statuses: new Set<number>() };
      tally.set(endpoint.name, seen);
      // The Item routes before may have discontinued a known item (a look-alike in DELETE's path folds to
      // its key): every endpoint starts with them active, so that sound Receives can still succeed.
      for (const shortID of SHORT_IDS) {
        const put = await fetch(`${base}/api/v1/Item`, { method: 'PUT', headers: { Authorization: client.bearer, 'Content-Type': 'application/json' }, body: JSON.stringify({ shortID, discontinued: false }) });
        if (put.status !== 200) throw new Error(`reactivating ${shortID}: ${put.status} ${await put.text()}`);
      }
      const run = await fc.check(
        fc.asyncProperty(endpoint.request, async (req) => {
          let res: { status: number; contentType: string; text: string };
          try {
            const answer = await fetch(`${base}${req.path}`, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' });
            res = { status: answer.status, contentType: answer.headers.get('content-type') ?? '', text: req.method === 'HEAD' ? '' : await answer.text() };
          } catch (error) {
            // Only an oversized head may cut fetch off; its answer is then read on a plain socket and checked all the same.
            if (!oversizedHead(req)) throw error;
            res = await sendOversized(base, req);
            if (res.status !== 431) throw new Error(`an oversized request answered ${res.status}, not 431: ${res.text.slice(0, 300)}`);
          }
          const made = /\/Inventory\/(Allocate|Expect)$/.exec(req.path);
          if (made && res.status === 201) {
            const doc = (JSON.parse(res.text) as Record<string, KnownDocument>)[made[1] === 'Allocate' ? 'allocation' : 'expectation'];
            knownDocuments[made[1] === 'Allocate' ? 'Allocation' : 'Expectation'].push({ id: doc.id, itemID: doc.itemID, wid: doc.wid });
          }
          if (process.env.FUZZ_TRACE) appendFileSync(process.env.FUZZ_TRACE, JSON.stringify({ ...req, status: res.status }) + '\n');
          const text = res.text;
          seen.sent++;
          seen.statuses.add(res.status);
          if (res.status < 300) seen.ok++;
          const found = problems(req.method, res.status, res.contentType, text, !req.path.startsWith('/api/v1/openapi.json'));
          if (found.length) throw new Error(`${found.join('; ')}: ${res.status} ${text.slice(0, 500)}\nservice log: ${service!.output().split('\n').filter((l) => /"level":(50|60)/.test(l)).slice(-3).join('\n').slice(0, 3000)}`);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      if (run.failed) {
        const req = run.counterexample?.[0];
        const show = (x: unknown) => (x === undefined ? '' : asText(x).slice(0, 2000));
        // The whole request, for replaying it by hand (the message shortens long values).
        const saved = join(tmpdir(), `fuzz-failure-${testDatabaseKind()}-${endpoint.name.replace(/[^A-Za-z0-9]+/g, '_')}.json`);
        writeFileSync(saved, JSON.stringify({ ...req, body: Buffer.isBuffer(req?.body) ? req?.body.toString('base64') : req?.body }));
        throw new Error(
          `${String(run.errorInstance instanceof Error ? run.errorInstance.message : run.errorInstance).slice(0, 800)}\n` +
            `request: ${req?.method} ${show(req?.path)} ${show(JSON.stringify(req?.headers))}\nbody: ${show(req?.body)}\n` +
            `replay: FUZZ_SEED=${SEED} (path ${run.counterexamplePath}); whole request in ${saved}`,
        );
      }
      expect(seen.sent).toBe(RUNS);
      // The fuzz reaches the real work too, not only the refusals. (A sound Move
      // succeeds about once in 75 requests: with FUZZ_RUNS under 300 this is
      // not checked, since a run that short can miss it by chance.)
      if (RUNS >= 300 && !endpoint.name.startsWith('unknown') && !endpoint.name.startsWith('DELETE')) expect(seen.ok).toBeGreaterThan(0);
    });
  }

  it('leaves the ledger invariant and the documents\' figures intact, and the service logged no error', async () => {
    const ledger = await ledgerOf(db.target);
    expect({ mismatches: ledger.mismatches, countMismatches: ledger.countMismatches, listCountMismatches: ledger.listCountMismatches, documentMismatches: ledger.documentMismatches, documentStateMismatches: ledger.documentStateMismatches }).toEqual({
      mismatches: [], countMismatches: [], listCountMismatches: [], documentMismatches: [], documentStateMismatches: [],
    });
    expect(ledger.ok).toBe(true);
    expect(service!.output()).not.toMatch(/"level":(50|60)/);
  });
});
