import request from 'supertest';
import { checkLedger } from '../../src/inventory/ledger-check.module.js';
import type { TestApp } from '../app.factory.js';

type Body = Record<string, unknown>;

export const receive = (t: TestApp, bearer: string, body: Body, key?: string) => post(t, bearer, '/api/v1/Inventory/Receive', { reasonCode: 1, wid: 1, ...body }, key);
export const issue = (t: TestApp, bearer: string, body: Body, key?: string) => post(t, bearer, '/api/v1/Inventory/Issue', { reasonCode: 2, wid: 1, ...body }, key);
export const move = (t: TestApp, bearer: string, body: Body, key?: string) => post(t, bearer, '/api/v1/Inventory/Move', { wid: 1, ...body }, key);
export const hold = (t: TestApp, bearer: string, body: Body, key?: string) => post(t, bearer, '/api/v1/Inventory/Hold', { reasonCode: 3, wid: 1, ...body }, key);
export const count = (t: TestApp, bearer: string, body: Body, key?: string) => post(t, bearer, '/api/v1/Inventory/Count', { reasonCode: 5, wid: 1, ...body }, key);
export const batch = (t: TestApp, bearer: string, operations: unknown, key?: string) => post(t, bearer, '/api/v1/Inventory/Batch', { operations }, key);
export const release = (t: TestApp, bearer: string, body: Body, key?: string) => post(t, bearer, '/api/v1/Inventory/Release', { reasonCode: 4, wid: 1, ...body }, key);

function post(t: TestApp, bearer: string, path: string, body: Body, key?: string) {
  const r = request(t.http).post(path).set('Authorization', bearer);
  return (key ? r.set('Idempotency-Key', key) : r).send(body);
}

/** Receives and fails the test unless it is 201; returns the new recNo. */
export async function givenStock(t: TestApp, bearer: string, body: Body): Promise<number> {
  const res = await receive(t, bearer, body);
  if (res.status !== 201) throw new Error(`receive failed: ${res.status} ${res.text}`);
  return res.body.recNo as number;
}

/** The stock-level row of one item, through the API (in one warehouse, or over the caller's). */
export async function stockOf(t: TestApp, bearer: string, shortID: string, wid?: number): Promise<Record<string, number> | undefined> {
  const res = await request(t.http)
    .get(`/api/v1/Inventory/StockLevels${wid ? `/${wid}` : ''}?pageSize=250`)
    .set('Authorization', bearer);
  if (res.status !== 200) throw new Error(`stock levels failed: ${res.status} ${res.text}`);
  return (res.body.value as Array<Record<string, number> & { shortID: string }>).find((r) => r.shortID === shortID);
}

export async function lotsOf(t: TestApp, bearer: string, shortID: string, wid?: number): Promise<Array<Record<string, unknown>>> {
  const res = await request(t.http)
    .get(`/api/v1/Inventory${wid ? `/${wid}` : ''}?itemID=${encodeURIComponent(shortID)}&pageSize=250&sort=recNo`)
    .set('Authorization', bearer);
  if (res.status !== 200) throw new Error(`lots failed: ${res.status} ${res.text}`);
  return res.body.value;
}

/** The ledger invariant on the test database; run after every inventory spec file. */
export async function expectLedgerConsistent(t: TestApp): Promise<void> {
  const report = await checkLedger(t.dataSource);
  expect(report.mismatches).toEqual([]);
  expect(report.countMismatches).toEqual([]);
  expect(report.listCountMismatches).toEqual([]);
  expect(report.documentMismatches).toEqual([]);
  expect(report.documentStateMismatches).toEqual([]);
  expect(report.ok).toBe(true);
}
