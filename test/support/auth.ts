import request from 'supertest';
import { AdminService } from '../../src/auth/admin.service.js';
import { ALL_SECURITY_IDS, type SecurityId } from '../../src/auth/security-id.js';
import type { TestApp } from '../app.factory.js';

let seq = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++seq}`;

/** Makes sure warehouses exist (warehouse 1 "Main" comes from the first start). */
export async function givenWarehouses(t: TestApp, ...wids: number[]): Promise<void> {
  const admin = t.app.get(AdminService);
  for (const wid of wids) {
    await admin.createWarehouse(wid, `Warehouse ${wid}`).catch((e: Error) => {
      if (!/already exists/.test(e.message)) throw e;
    });
  }
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  token: string;
  /** `Authorization` header value. */
  bearer: string;
}

/** A client with its own group, the given SecurityIDs and warehouses, and a fresh token. */
export async function givenClient(
  t: TestApp,
  options: { permissions?: SecurityId[]; warehouses?: number[]; readOnly?: boolean } = {},
): Promise<TestClient> {
  const admin = t.app.get(AdminService);
  const permissions = options.permissions ?? ALL_SECURITY_IDS;
  const warehouses = options.warehouses ?? [1];
  await givenWarehouses(t, ...warehouses);
  const group = unique('group');
  await admin.createGroup(group, permissions.join(','));
  const credentials = await admin.createClient({ name: unique('client'), group, warehouses: warehouses.join(','), readOnly: options.readOnly ?? false });
  const token = await tokenFor(t, credentials.clientId, credentials.clientSecret);
  return { ...credentials, token, bearer: `Bearer ${token}` };
}

/** POST /Token with form fields; fails the test unless it is 200. */
export async function tokenFor(t: TestApp, clientId: string, clientSecret: string): Promise<string> {
  const res = await request(t.http)
    .post('/api/v1/Token')
    .type('form')
    .send({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}
