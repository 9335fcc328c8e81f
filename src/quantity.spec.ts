import fc from 'fast-check';
import {
  addDecimal,
  formatDecimal,
  fromTenThousandths,
  readStoredDecimal,
  storedTenThousandths,
  compareDecimal,
  decimalTransformer,
  subtractDecimal,
  sumDecimals,
  toTenThousandths,
} from './quantity.js';

describe('exact DECIMAL(18,4) arithmetic', () => {
  it('adds 0.1 ten times to exactly 1', () => {
    let total = 0;
    for (let i = 0; i < 10; i++) total = addDecimal(total, 0.1);
    expect(total).toBe(1);
    expect(sumDecimals(Array(10).fill(0.1))).toBe(1);
  });

  it('subtracts without float drift', () => {
    expect(subtractDecimal(0.3, 0.1)).toBe(0.2);
    expect(subtractDecimal(1, 0.0001)).toBe(0.9999);
    expect(subtractDecimal(99_999_999_999.9999, 99_999_999_999.9998)).toBe(0.0001);
  });

  it('compares exactly', () => {
    expect(compareDecimal(0.3, addDecimal(0.1, 0.2))).toBe(0);
    expect(compareDecimal(0.0001, 0)).toBe(1);
    expect(compareDecimal(-1, 0)).toBe(-1);
  });

  it('accepts at most 4 decimal places and only finite numbers', () => {
    expect(toTenThousandths(1.2345)).toBe(12345n);
    expect(toTenThousandths(-0.5)).toBe(-5000n);
    expect(toTenThousandths(1e-4)).toBe(1n);
    expect(toTenThousandths(1.23456)).toBeNull();
    expect(toTenThousandths(1e-5)).toBeNull();
    expect(toTenThousandths(0.1 + 0.2)).toBeNull();
    expect(toTenThousandths(Number.NaN)).toBeNull();
    expect(toTenThousandths(Number.POSITIVE_INFINITY)).toBeNull();
    expect(toTenThousandths(1e15)).toBeNull();
    expect(toTenThousandths('1' as unknown as number)).toBeNull();
  });
});

describe('decimalTransformer', () => {
  it('writes a 4-place string for both drivers', () => {
    expect(decimalTransformer.to(12.5)).toBe('12.5000');
    expect(decimalTransformer.to(-0.0001)).toBe('-0.0001');
    expect(decimalTransformer.to(null)).toBeNull();
  });

  it('reads mysql2 strings and SQLite numbers to the same exact value', () => {
    expect(decimalTransformer.from('12.3400')).toBe(12.34);
    expect(decimalTransformer.from('-0.0001')).toBe(-0.0001);
    expect(decimalTransformer.from(12.34)).toBe(12.34);
    expect(decimalTransformer.from(0.30000000000000004)).toBe(0.3);
    expect(decimalTransformer.from(null)).toBeNull();
  });

  it('reads sums beyond the input cap exactly', () => {
    expect(storedTenThousandths('12345678901234.5678')).toBe(123456789012345678n);
    expect(storedTenThousandths('-0.0001')).toBe(-1n);
    expect(storedTenThousandths(0.30000000000000004)).toBe(3000n);
  });

  it('reads a MySQL decimal as it is exactly when the exact path would give the same number', () => {
    // Every DECIMAL(18,4) text MySQL/MariaDB can send, and texts that are not canonical (leading zeros,
    // fewer or more places, spaces), against the exact path: ten-thousandths formatted, then read.
    const count = fc.bigInt({ min: -999_999_999_999_999_999n, max: 999_999_999_999_999_999n });
    fc.assert(
      fc.property(count, (n) => {
        expect(Object.is(readStoredDecimal(formatDecimal(n)), fromTenThousandths(n))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    for (const text of ['-0.0000', '0.0000', '00.5000', '1.5', '1.50000', ' 2.0000', '12345678901234.5678', '-99999999999999.9999']) {
      expect(Object.is(readStoredDecimal(text), fromTenThousandths(storedTenThousandths(text.trim())))).toBe(true);
    }
  });

  it('refuses to write a value with more than 4 places rather than rounding it', () => {
    expect(() => decimalTransformer.to(0.00001)).toThrow(RangeError);
  });
});
