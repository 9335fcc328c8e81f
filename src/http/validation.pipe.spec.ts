import 'reflect-metadata';
import { IsOptional, IsString } from 'class-validator';
import { ItemQueryDto } from '../catalog/item.dto.js';
import { MAX_BODY_DEPTH, sanitizeBody } from './body-errors.js';
import { ApiValidationPipe } from './validation.pipe.js';

class BodyDto {
  @IsString()
  name: string;

  @IsOptional()
  @IsString()
  note?: string;
}

const pipe = new ApiValidationPipe();
/** What Express's query parser hands over: an object without a prototype. */
const query = (fields: Record<string, string>) => Object.assign(Object.create(null) as object, fields);

describe('ApiValidationPipe against hostile keys', () => {
  it('leaves Object.prototype alone when the query has __proto__, constructor or prototype', async () => {
    for (const key of ['__proto__', 'constructor', 'prototype', '__PROTO__']) {
      const q = query({ page: '[', key: 'x' });
      Object.defineProperty(q, key, { value: '978370656', enumerable: true });
      await pipe.transform(q, { type: 'query', metatype: ItemQueryDto }).catch(() => undefined);
      expect(({} as { constructor: unknown }).constructor).toBe(Object);
      expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('978370656');
    }
  });

  it('still merges a parameter repeated in two spellings', async () => {
    await expect(pipe.transform(query({ page: '1', PAGE: '2' }), { type: 'query', metatype: ItemQueryDto })).rejects.toMatchObject({
      code: 'validation_error',
      details: { page: [expect.any(String)] },
    });
  });

  it('treats a null body field as not sent, and reports a required one missing', async () => {
    await expect(pipe.transform({ name: 'a', note: null }, { type: 'body', metatype: BodyDto })).resolves.toEqual(Object.assign(new BodyDto(), { name: 'a' }));
    await expect(pipe.transform({ name: null }, { type: 'body', metatype: BodyDto })).rejects.toMatchObject({ details: { name: ['name must be a string'] } });
  });

  it('matches body field names case-insensitively, and refuses one field sent in two spellings', async () => {
    await expect(pipe.transform({ NAME: 'a', Note: 'n' }, { type: 'body', metatype: BodyDto })).resolves.toEqual(Object.assign(new BodyDto(), { name: 'a', note: 'n' }));
    await expect(pipe.transform({ name: 'a', note: 'x', NOTE: 'y' }, { type: 'body', metatype: BodyDto })).rejects.toMatchObject({
      code: 'validation_error',
      details: { note: ['note was sent more than once (as note, NOTE)'] },
    });
    // A null spelling counts as not sent.
    await expect(pipe.transform({ name: 'a', note: null, Note: 'y' }, { type: 'body', metatype: BodyDto })).resolves.toEqual(Object.assign(new BodyDto(), { name: 'a', note: 'y' }));
  });

  it('reads a body without a prototype (a form) like any other', async () => {
    const form = query({ name: 'a', constructor: 'x' });
    await expect(pipe.transform(form, { type: 'body', metatype: BodyDto })).resolves.toEqual(Object.assign(new BodyDto(), { name: 'a' }));
  });
});

describe('body guards', () => {
  const run = (body: unknown) => {
    let result: unknown = 'not called';
    sanitizeBody({ body } as never, {} as never, (error?: unknown) => (result = error));
    return result;
  };

  it('drops prototype keys at every depth of a JSON body', () => {
    const body = JSON.parse('{"a":{"__proto__":{"x":1},"constructor":{"prototype":{"x":1}},"b":[{"constructor":null,"c":1}]},"prototype":2}');
    expect(run(body)).toBeUndefined();
    expect(body).toEqual({ a: { b: [{ c: 1 }] } });
  });

  it(`refuses a body nested deeper than ${MAX_BODY_DEPTH} levels, and passes one exactly that deep`, () => {
    // Built as JSON text, as a client sends it (a recursive builder would overflow first).
    const nest = (depth: number): unknown => JSON.parse(`${'{"a":'.repeat(depth - 1)}{"v":1}${'}'.repeat(depth - 1)}`);
    expect(run(nest(MAX_BODY_DEPTH))).toBeUndefined();
    expect(run(nest(MAX_BODY_DEPTH + 1))).toMatchObject({ code: 'bad_request', message: `Request body is nested deeper than ${MAX_BODY_DEPTH} levels.` });
    expect(run(nest(20_000))).toMatchObject({ code: 'bad_request' });
  });
});
