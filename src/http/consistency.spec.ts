import { ValidationFailed } from '../errors.js';
import { parseConsistency } from './consistency.js';

describe('parseConsistency', () => {
  it('is eventual without the header, and strong or eventual in any case and spacing', () => {
    expect(parseConsistency(undefined)).toBe('eventual');
    expect(parseConsistency('strong')).toBe('strong');
    expect(parseConsistency(' STRONG ')).toBe('strong');
    expect(parseConsistency('Eventual')).toBe('eventual');
    expect(parseConsistency(['strong'])).toBe('strong');
  });

  it.each(['', 'strng', 'strong,strong', 'linearizable', '\u0000strong'])('refuses %j as a validation_error on Consistency', (raw) => {
    expect(() => parseConsistency(raw)).toThrow(ValidationFailed);
    try {
      parseConsistency(raw);
    } catch (error) {
      expect((error as ValidationFailed).details).toEqual({ Consistency: ['Consistency must be strong or eventual'] });
    }
  });

  it('refuses the header sent twice with different values', () => {
    expect(() => parseConsistency(['strong', 'eventual'])).toThrow(ValidationFailed);
  });
});
