import 'reflect-metadata';
import { ValidationFailed } from '../errors.js';
import { ApiValidationPipe } from '../http/validation.pipe.js';
import { CreateItemDto, itemChanges } from './item.dto.js';

const pipe = new ApiValidationPipe();
const validate = (body: unknown) => pipe.transform(body, { type: 'body', metatype: CreateItemDto }) as Promise<CreateItemDto>;
const details = async (body: unknown) => ((await validate(body).catch((e: unknown) => e)) as ValidationFailed).details;

describe('CreateItemDto', () => {
  it.each([
    [{}, 'shortID is required'],
    [{ shortID: 5 }, 'shortID must be a string'],
    [{ shortID: '' }, 'shortID must not be empty'],
    [{ shortID: 'x'.repeat(65) }, 'shortID must be at most 64 characters'],
    [{ shortID: 'a/b' }, 'shortID must not contain /, ? or #'],
    [{ shortID: 'a?b' }, 'shortID must not contain /, ? or #'],
    [{ shortID: 'a#b' }, 'shortID must not contain /, ? or #'],
    [{ shortID: 'a\nb' }, 'shortID must not contain control characters, invisible format characters (zero-width, bidi, BOM) or unpaired surrogates'],
    [{ shortID: 'a\u200bb' }, 'shortID must not contain control characters, invisible format characters (zero-width, bidi, BOM) or unpaired surrogates'],
    [{ shortID: 'DUP\ud800' }, 'shortID must not contain control characters, invisible format characters (zero-width, bidi, BOM) or unpaired surrogates'],
    [{ shortID: ' ab' }, 'shortID must not start or end with a space'],
    [{ shortID: 'ab ' }, 'shortID must not start or end with a space'],
  ])('refuses %j with one message naming the field and the rule', async (body, message) => {
    expect(await details(body)).toEqual({ shortID: [message] });
  });

  it('accepts 64 characters, inner spaces, unicode', async () => {
    for (const shortID of ['x'.repeat(64), 'A B-1', 'Straße-ü', '12345']) {
      expect((await validate({ shortID })).shortID).toBe(shortID);
    }
  });

  it.each([
    [{ units: 0 }, 'units', 'units must be greater than 0'],
    [{ units: 1.23456 }, 'units', 'units must have at most 4 decimal places'],
    [{ units: '1' }, 'units', 'units must be a number'],
    [{ units: 1e11 }, 'units', 'units must be at most 99999999999.9999'],
    [{ category: 1.5 }, 'category', 'category must be a whole number'],
    [{ category: -1 }, 'category', 'category must be at least 0'],
    [{ description: 'x'.repeat(256) }, 'description', 'description must be at most 255 characters'],
    [{ description: 'bolt\u202e' }, 'description', 'description must not contain control characters, invisible format characters (zero-width, bidi, BOM) or unpaired surrogates'],
    [{ uOM: '' }, 'uOM', 'uOM must be at least 1 character'],
    [{ discontinued: 'no' }, 'discontinued', 'discontinued must be true or false'],
  ])('refuses %j on %s', async (fields, field, message) => {
    expect(await details({ shortID: 'A', ...fields })).toEqual({ [field]: [message] });
  });

  it('strips read-only and unknown fields', async () => {
    const dto = await validate({ shortID: 'A', partNo: 9, created: 'x', createdBy: 'y', modified: 'z', secret: 1 });
    expect(Object.keys(dto)).toEqual(['shortID']);
  });
});

describe('itemChanges', () => {
  it('maps the getting-started names, canonical names winning', () => {
    expect(itemChanges({ categoryID: 3, unit: 'KG', active: true })).toEqual({ category: 3, uOM: 'KG', discontinued: false });
    expect(itemChanges({ category: 4, categoryID: 3, uOM: 'M', unit: 'KG', discontinued: true, active: true })).toEqual({
      category: 4,
      uOM: 'M',
      discontinued: true,
    });
    expect(itemChanges({ active: false })).toEqual({ discontinued: true });
  });

  it('leaves out what was not sent', () => {
    expect(itemChanges({ description: 'x' })).toEqual({ description: 'x' });
  });
});
