import fc from 'fast-check';
import { caseKey } from '../database/case-key.js';
import { charCount, hasEdgeSpace, isWellFormedText, shortIdProblem } from './validators.js';

describe('isWellFormedText (DECISIONS "General": no Cc, Cf or Cs)', () => {
  it.each([
    ['a lone high surrogate', 'DUP\ud800'],
    ['a lone low surrogate', '\udc00DUP'],
    ['a pair in the wrong order', '\ude00\ud83d'],
    ['a high surrogate at the end after a pair', '😀\ud83d'],
    ['NUL', 'a\u0000'],
    ['a newline', 'a\nb'],
    ['DEL', 'a\u007f'],
    ['a C1 control', 'a\u0085'],
    ['a zero-width space', 'a\u200bb'],
    ['a zero-width joiner', 'a\u200db'],
    ['a right-to-left override', '\u202eabc'],
    ['a left-to-right mark', 'abc\u200e'],
    ['a byte-order mark', '\ufeffabc'],
    ['a soft hyphen', 'ab\u00adc'],
    ['a tag character', 'a\u{e0041}'],
  ])('refuses %s', (_name, value) => {
    expect(isWellFormedText(value)).toBe(false);
  });

  it('accepts well-formed text: astral characters (surrogate pairs), accents, CJK, full-width, inner spaces', () => {
    for (const value of ['😀', '𝔘nicode', 'Straße-ü', '部品-1', 'ＡＢＣ-1', 'A B', 'a\u00a0b', '']) expect(isWellFormedText(value)).toBe(true);
  });

  it('agrees with String.prototype.isWellFormed on every string, lone surrogates included', () => {
    const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (s) => {
        if (!isWellFormed(s)) expect(isWellFormedText(s)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('charCount', () => {
  it('counts code points, as the databases count characters', () => {
    expect(charCount('😀'.repeat(64))).toBe(64);
    expect(charCount('a\ufe0f'.repeat(64))).toBe(128);
  });
});

describe('hasEdgeSpace', () => {
  it('finds any leading or trailing space, not inner ones', () => {
    for (const value of [' a', 'a ', '\ta', 'a\u00a0', '\u3000a']) expect(hasEdgeSpace(value)).toBe(true);
    for (const value of ['a b', 'a', '']) expect(hasEdgeSpace(value)).toBe(false);
  });
});

describe('shortIdProblem', () => {
  it.each([
    ['', 'shortID must not be empty'],
    ['x'.repeat(65), 'shortID must be at most 64 characters'],
    ['a/b', 'shortID must not contain /, ? or #'],
    ['DUP\ud800', 'shortID must not contain control characters, invisible format characters (zero-width, bidi, BOM) or unpaired surrogates'],
    [' a', 'shortID must not start or end with a space'],
    ['\ufdfa'.repeat(4), 'shortID must be at most 64 characters once normalised (NFKC)'],
  ])('refuses %j', (value, message) => {
    expect(shortIdProblem(value, 'shortID')).toBe(message);
  });

  it('accepts full-width look-alikes (they fold to the same key as their plain forms)', () => {
    expect(shortIdProblem('ＡＢＣ-1', 'shortID')).toBeNull();
    expect(caseKey('ＡＢＣ-1')).toBe(caseKey('abc-1'));
  });
});
