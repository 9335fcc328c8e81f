/**
 * ISO 8601 datetimes as DECISIONS "General" reads them: a date, or a date and
 * time with optional seconds and fraction; without a zone it is UTC; a zone
 * of ±00:00 to ±23:59. Returns null for anything else: impossible dates
 * (2026-02-30), text around the datetime, and an instant whose UTC year is
 * outside 1000–9999, the years MariaDB's DATETIME holds (a year below 100
 * would be stored, then read back as 19xx or 20xx).
 */
const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/i;

/** The UTC years a datetime may fall in (MariaDB's DATETIME: 1000-01-01 to 9999-12-31). */
const FIRST_YEAR = 1000;
const LAST_YEAR = 9999;

export function parseIsoDateTime(text: string): Date | null {
  const m = ISO_DATETIME.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  // setUTCFullYear, because Date.UTC reads years 0–99 as 1900–1999.
  const check = new Date(Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms));
  check.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  const utc = check.getTime();
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return null;
  }
  const instant = new Date(utc - zoneOffsetMinutes(zone) * 60_000);
  const year = instant.getUTCFullYear();
  return year < FIRST_YEAR || year > LAST_YEAR ? null : instant;
}

function zoneOffsetMinutes(zone: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
}

/** class-transformer @Transform for an ISO datetime field: a Date when it parses, else left for @IsDate to refuse. */
export const toIsoDate = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? (parseIsoDateTime(value) ?? value) : value);
