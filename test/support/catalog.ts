import request from 'supertest';
import type { ItemResponseDto } from '../../src/catalog/item.responses.js';
import type { TestApp } from '../app.factory.js';

let seq = 0;

/** POST /Item; fails the test unless it is 201. */
export async function givenItem(t: TestApp, bearer: string, fields: Record<string, unknown> = {}): Promise<ItemResponseDto> {
  const body = { shortID: `ITEM-${process.pid}-${++seq}`, description: 'Test item', ...fields };
  const res = await request(t.http).post('/api/v1/Item').set('Authorization', bearer).send(body);
  if (res.status !== 201) throw new Error(`item create failed: ${res.status} ${res.text}`);
  const { status: _status, ...item } = res.body as ItemResponseDto & { status: string };
  return item;
}
