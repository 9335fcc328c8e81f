import fc from 'fast-check';
import { caseKey } from './case-key.js';

describe('caseKey (DECISIONS "Items": unique case-insensitively after NFKC)', () => {
  it('folds case and compatibility look-alikes to one key', () => {
    for (const value of ['abc-1', 'ABC-1', 'ＡＢＣ-1', 'ａｂｃ－１', 'Abc-¹']) expect(caseKey(value)).toBe('abc-1');
    expect(caseKey('ﬁle')).toBe('file');
    expect(caseKey('K')).toBe('k'); // KELVIN SIGN
  });

  it('keeps accents: ÄBC-1 is not ABC-1', () => {
    expect(caseKey('ÄBC-1')).not.toBe(caseKey('ABC-1'));
    expect(caseKey('Ä')).toBe(caseKey('a\u0308')); // composed and decomposed are one
  });

  it('is idempotent, so a stored key folds to itself', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 20 }), (s) => expect(caseKey(caseKey(s))).toBe(caseKey(s))), { numRuns: 2000 });
  });
});
