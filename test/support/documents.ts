import request from 'supertest';
import { type AppConfig, loadConfig } from '../../src/config/config.js';
import type { TestApp } from '../app.factory.js';

/**
 * Allocations (outbound) and expectations (inbound): the documents behind
 * `committed`, `packed`, `onOrder` and `aSN`, through the API.
 */
type Body = Record<string, unknown>;
export type Doc = Record<string, unknown> & { id: number | string; state: string };

const INVENTORY = '/api/v1/Inventory';

let seq = 0;
/** A reference (order line) no other test uses, and that is no prefix of another. */
export const uniqueReference = (prefix = 'SO') => `${prefix}-${process.pid}-${++seq}-x`;

export const allocate = (t: TestApp, bearer: string, body: Body, key?: string) => post(t, bearer, `${INVENTORY}/Allocate`, { wid: 1, ...body }, key);
export const pack = (t: TestApp, bearer: string, id: Doc['id'], body: Body, key?: string) => post(t, bearer, `${INVENTORY}/Allocations/${id}/Pack`, body, key);
export const cancelAllocation = (t: TestApp, bearer: string, id: Doc['id'], key?: string) => post(t, bearer, `${INVENTORY}/Allocations/${id}/Cancel`, {}, key);
export const expectUnits = (t: TestApp, bearer: string, body: Body, key?: string) => post(t, bearer, `${INVENTORY}/Expect`, { wid: 1, ...body }, key);
export const shipExpectation = (t: TestApp, bearer: string, id: Doc['id'], key?: string) => post(t, bearer, `${INVENTORY}/Expectations/${id}/Ship`, {}, key);
export const cancelExpectation = (t: TestApp, bearer: string, id: Doc['id'], key?: string) => post(t, bearer, `${INVENTORY}/Expectations/${id}/Cancel`, {}, key);

export const getAllocation = (t: TestApp, bearer: string, id: Doc['id']) => request(t.http).get(`${INVENTORY}/Allocation/${id}`).set('Authorization', bearer);
export const getExpectation = (t: TestApp, bearer: string, id: Doc['id']) => request(t.http).get(`${INVENTORY}/Expectation/${id}`).set('Authorization', bearer);

function post(t: TestApp, bearer: string, path: string, body: Body, key?: string) {
  const r = request(t.http).post(path).set('Authorization', bearer);
  return (key ? r.set('Idempotency-Key', key) : r).send(body);
}

/** POST /Inventory/Allocate (wid 1 and a fresh reference unless given); fails the test unless it is 201. */
export async function givenAllocation(t: TestApp, bearer: string, body: Body): Promise<Doc> {
  const res = await allocate(t, bearer, { reference: uniqueReference(), ...body });
  if (res.status !== 201) throw new Error(`allocate failed: ${res.status} ${res.text}`);
  return res.body.allocation;
}

/** POST /Inventory/Expect (wid 1 and a fresh reference unless given); fails the test unless it is 201. */
export async function givenExpectation(t: TestApp, bearer: string, body: Body): Promise<Doc> {
  const res = await expectUnits(t, bearer, { reference: uniqueReference('PO'), ...body });
  if (res.status !== 201) throw new Error(`expect failed: ${res.status} ${res.text}`);
  return res.body.expectation;
}

/** GET one allocation or expectation; fails the test unless it is 200. */
export async function documentOf(t: TestApp, bearer: string, kind: 'Allocation' | 'Expectation', id: Doc['id']): Promise<Doc> {
  const res = await (kind === 'Allocation' ? getAllocation : getExpectation)(t, bearer, id);
  if (res.status !== 200) throw new Error(`GET ${kind} ${id}: ${res.status} ${res.text}`);
  return res.body;
}

/** Every document of a list URL (one page of 250; the tests keep their lists small by filtering). */
export async function idsOf(t: TestApp, bearer: string, url: string): Promise<Array<Doc['id']>> {
  const res = await request(t.http).get(url).set('Authorization', bearer);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${res.text}`);
  return (res.body.value as Doc[]).map((d) => d.id);
}

/**
 * The AppConfig fields that environment variables set, read by the service's
 * own parser: only the fields that differ from what it reads without them
 * (empty when the service does not know the variables).
 */
export function configFromEnvironment(variables: Record<string, string>): Partial<Omit<AppConfig, 'database'>> {
  const base = { DATABASE_URL: 'sqlite:unused.sqlite' };
  const plain = loadConfig(base) as unknown as Record<string, unknown>;
  const set = loadConfig({ ...base, ...variables }) as unknown as Record<string, unknown>;
  return Object.fromEntries(Object.entries(set).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify(plain[field])));
}

/** The ISO 8601 UTC text of a moment `ms` from now, rounded up to a whole second (what every database stores exactly), as the API writes datetimes. */
export const fromNow = (ms: number) => new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toISOString();
export const DAY_MS = 24 * 3600 * 1000;
export const ISO_DATETIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
