import type { ValueTransformer } from 'typeorm';

/**
 * Exact DECIMAL(18,4) values (DECISIONS "General": receiving 0.1 ten times gives
 * exactly 1). Values travel as JSON numbers and live in entities as numbers that
 * are exactly their 4-place decimal; every sum or difference goes through a
 * count of ten-thousandths held in a bigint, so no float error can build up.
 *
 * Drivers differ: mysql2 returns DECIMAL as a string ("12.3400"); SQLite gives
 * back a number. Both are accepted on the way in; a 4-place string goes out.
 */
export const DECIMAL_PLACES = 4;
/**
 * Largest magnitude accepted: 11 integer digits and 4 decimals, 15 significant
 * digits, the most a JSON number (an IEEE double) carries exactly through every
 * parser. DECIMAL(18,4) columns hold more, which leaves room for sums.
 */
export const DECIMAL_MAX = 99_999_999_999.9999;
const FACTOR = 10_000n;
const MAX_COUNT = 999_999_999_999_999n;

/** The value as a count of ten-thousandths, or null if it is not a finite number with at most 4 decimal places. */
export function toTenThousandths(value: number): bigint | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > DECIMAL_MAX) return null;
  const fixed = value.toFixed(DECIMAL_PLACES);
  if (Number(fixed) !== value) return null;
  return parseFixed(fixed);
}

export function fromTenThousandths(count: bigint): number {
  return Number(formatDecimal(count));
}

export function formatDecimal(count: bigint): string {
  const sign = count < 0n ? '-' : '';
  const abs = count < 0n ? -count : count;
  return `${sign}${abs / FACTOR}.${(abs % FACTOR).toString().padStart(DECIMAL_PLACES, '0')}`;
}

/** Exact a + b of two decimals. */
export function addDecimal(a: number, b: number): number {
  return fromTenThousandths(exact(a) + exact(b));
}

/** Exact a - b of two decimals. */
export function subtractDecimal(a: number, b: number): number {
  return fromTenThousandths(exact(a) - exact(b));
}

/** Exact sum of decimals. */
export function sumDecimals(values: Iterable<number>): number {
  let total = 0n;
  for (const v of values) total += exact(v);
  return fromTenThousandths(total);
}

export function compareDecimal(a: number, b: number): -1 | 0 | 1 {
  const d = exact(a) - exact(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

function exact(value: number): bigint {
  const count = toTenThousandths(value);
  if (count === null) throw new RangeError(`${value} is not a DECIMAL(18,4) value`);
  return count;
}

function parseFixed(text: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`"${text}" is not a decimal`);
  const [, sign, whole, frac = ''] = match;
  const count = BigInt(whole) * FACTOR + BigInt(frac.padEnd(DECIMAL_PLACES, '0').slice(0, DECIMAL_PLACES));
  return sign ? -count : count;
}

/**
 * A stored value or SQL sum from either driver as ten-thousandths, without the
 * input cap: sums may exceed what a request may send.
 */
export function storedTenThousandths(raw: string | number): bigint {
  return typeof raw === 'number' ? BigInt(Math.round(raw * 10_000)) : parseFixed(raw.trim());
}

/** Whether a stored amount (ten-thousandths) plus `add` stays within DECIMAL_MAX (DECISIONS "Inventory": the bound on stock). */
export function withinDecimalMax(stored: bigint, add: number): boolean {
  return stored + exact(add) <= MAX_COUNT;
}

/** A DECIMAL(18,4) as MySQL/MariaDB send it: no leading zero, exactly four places. */
const CANONICAL_DECIMAL = /^-?(?:0|[1-9]\d{0,13})\.\d{4}$/;

/**
 * Reads a stored value from either driver, to its nearest 4-place decimal.
 * MySQL/MariaDB send a DECIMAL(18,4) as exactly the text the exact path would
 * format (`formatDecimal`), so that text is read as it is (a negative zero
 * made 0, as the exact path makes it); anything else goes the exact way.
 */
export function readStoredDecimal(raw: string | number): number {
  if (typeof raw === 'string' && CANONICAL_DECIMAL.test(raw)) return Number(raw) + 0;
  return fromTenThousandths(storedTenThousandths(raw));
}

/** Column transformer for every DECIMAL(18,4) column. */
export const decimalTransformer: ValueTransformer = {
  to: (value: number | null | undefined) => (value === null || value === undefined ? value : formatDecimal(exact(value))),
  from: (raw: string | number | null) => (raw === null || raw === undefined ? raw : readStoredDecimal(raw)),
};
