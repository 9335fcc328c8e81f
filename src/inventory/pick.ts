import { fromTenThousandths, toTenThousandths } from '../quantity.js';
import { Conflict } from '../errors.js';

/**
 * Which lots an Issue, Move, Hold, Release or Count takes (DECISIONS "Inventory"), decided without
 * the database: the filter the lot query applies, and the plan over the lots
 * it returns. The service locks, applies the plan and writes the ledger.
 */

export class InsufficientStock extends Conflict {
  /** `requested` null: every matching unit (a Hold or Release without `units`). */
  constructor(shortId: string, wid: number, requested: number | null, available: number) {
    super(`Insufficient stock: requested ${requested ?? 'all matching'} units of ${shortId} in warehouse ${wid}, ${available} available.`, {
      reason: 'insufficient_stock',
      itemID: shortId,
      wid,
      requested,
      available,
    });
  }
}

/**
 * EXTENSIONS "Every stock state the spec names": an Allocate, a plain Issue, a
 * Move out of the warehouse and a Hold take only `available` units
 * (ten-thousandths, read from the locked stock_level row; negative once a
 * Count found fewer units than are allocated, and then nothing is taken).
 * More → InsufficientStock naming what could be taken: the available units,
 * or the units of the matching lots when those are fewer (`matching`).
 */
export function assertAvailable(available: bigint, units: number, of: { shortId: string; wid: number }, requested: number | null = units, matching?: bigint): void {
  if (exact(units) <= available) return;
  const could = matching !== undefined && matching < available ? matching : available;
  throw new InsufficientStock(of.shortId, of.wid, requested, fromTenThousandths(could));
}

/** The units of these lots, exactly (ten-thousandths). */
export function unitsOf(lots: ReadonlyArray<{ units: number }>): bigint {
  return lots.reduce((sum, lot) => sum + exact(lot.units), 0n);
}

/** The units a plan takes, of the lots that pass `which` if given. */
export function planUnits<L extends { units: number }>(plan: PickPlan<L>, which: (lot: L) => boolean = () => true): number {
  const whole = unitsOf(plan.whole.filter(which));
  return fromTenThousandths(whole + (plan.part && which(plan.part.lot) ? exact(plan.part.units) : 0n));
}

/** The in-stock lots of an item in one warehouse that an Issue or Move may take, in the lot's own field names. */
export interface LotFilter {
  recNo?: number;
  spot?: string;
  serial?: string;
  serial2?: string;
  rFIDTag?: string;
  /** Held lots are never issued; a Move takes them and the hold travels with the units. */
  includeHeld: boolean;
  /** Only held lots (a Release). */
  onlyHeld?: boolean;
  /** A move within one warehouse does not move lots already at the destination spot onto themselves. */
  notAtSpot?: string;
  /** Received at or after `from` and before `before`. */
  received?: { from: Date; before: Date };
}

/** The Issue body's selectors (IssueDto). */
export interface IssueSelectors {
  recno?: number;
  spot?: string;
  serial?: string;
  serial2?: string;
  rfidTag?: string;
}

/** The Move body's selectors and destination (MoveDto). */
export interface MoveSelectors {
  wid: number;
  shipToWid?: number;
  recno?: number;
  fromSpot?: string;
  toSpot?: string;
  serial?: string;
  serial2?: string;
  rfidTag?: string;
  received?: Date;
}

export function issueFilter(s: IssueSelectors): LotFilter {
  return { recNo: s.recno, spot: s.spot, serial: s.serial, serial2: s.serial2, rFIDTag: s.rfidTag, includeHeld: false };
}

/** Hold takes in-stock lots that are not held, Release held ones, with the Issue body's selectors. */
export function holdFilter(s: IssueSelectors, hold: boolean): LotFilter {
  return { ...issueFilter(s), includeHeld: !hold, ...(hold ? {} : { onlyHeld: true }) };
}

export function moveFilter(s: MoveSelectors): LotFilter {
  const within = (s.shipToWid ?? s.wid) === s.wid;
  return {
    recNo: s.recno,
    spot: s.fromSpot,
    serial: s.serial,
    serial2: s.serial2,
    rFIDTag: s.rfidTag,
    includeHeld: true,
    notAtSpot: within ? s.toSpot : undefined,
    received: s.received ? receivedDay(s.received) : undefined,
  };
}

/** The UTC day that holds `on`, as [from, before). */
export function receivedDay(on: Date): { from: Date; before: Date } {
  const from = new Date(Date.UTC(on.getUTCFullYear(), on.getUTCMonth(), on.getUTCDate()));
  return { from, before: new Date(from.getTime() + 86_400_000) };
}

export interface PickPlan<L> {
  /** Lots taken whole, in the order given (oldest first). */
  whole: L[];
  /** The one lot taken in part, the next after the whole ones: it keeps the rest. Null when `units` ends on a lot's boundary. */
  part: { lot: L; units: number } | null;
}

/**
 * Takes `units` from `lots` in the order given (the query's: oldest first,
 * `received` then `recNo`): each lot whole until the last one needed, which is
 * taken whole or in part. Not enough in all of them → InsufficientStock, so
 * nothing is written. Exact: counts of ten-thousandths, never float sums.
 */
export function pick<L extends { units: number }>(lots: readonly L[], units: number, of: { shortId: string; wid: number }): PickPlan<L> {
  const counts = lots.map((lot) => exact(lot.units));
  const available = counts.reduce((sum, c) => sum + c, 0n);
  let remaining = exact(units);
  if (available < remaining) throw new InsufficientStock(of.shortId, of.wid, units, fromTenThousandths(available));
  const whole: L[] = [];
  for (let i = 0; remaining > 0n; i++) {
    if (counts[i] > remaining) return { whole, part: { lot: lots[i], units: fromTenThousandths(remaining) } };
    whole.push(lots[i]);
    remaining -= counts[i];
  }
  return { whole, part: null };
}

/**
 * A Hold or Release: `units` as `pick` does, or without `units` every lot
 * whole. Nothing matching is InsufficientStock either way (EXTENSIONS:
 * nothing changes, and the client learns that nothing matched).
 */
export function pickOrAll<L extends { units: number }>(lots: readonly L[], units: number | undefined, of: { shortId: string; wid: number }): PickPlan<L> {
  if (units !== undefined) return pick(lots, units, of);
  if (!lots.length) throw new InsufficientStock(of.shortId, of.wid, null, 0);
  return { whole: [...lots], part: null };
}

/** A Count's selectors (CountDto): Issue's without `recno`. */
export interface CountSelectors {
  spot?: string;
  serial?: string;
  serial2?: string;
  rfidTag?: string;
}

/** A Count looks at every in-stock lot that matches, held ones included. */
export function countFilter(s: CountSelectors): LotFilter {
  return { spot: s.spot, serial: s.serial, serial2: s.serial2, rFIDTag: s.rfidTag, includeHeld: true };
}

/** The units on hand now differ from what the client expected: nothing changes. */
export class CountExpectationFailed extends Conflict {
  constructor(shortId: string, wid: number, expected: number, onHand: number) {
    super(`Count of ${shortId} in warehouse ${wid} expected ${expected} units on hand, but ${onHand} are.`, { reason: 'count_changed', expected, onHand });
  }
}

/** What a Count does: `delta` > 0 receives a new lot, < 0 issues -delta units (`countTake`), 0 only records the count. */
export interface CountPlan {
  before: number;
  delta: number;
}

/**
 * A Count of the matching lots' units on hand (`onHand`, ten-thousandths):
 * compare-and-set against `expected`, then the difference to `counted`.
 * Exact: ten-thousandths.
 */
export function planCount(onHand: bigint, counted: number, expected: number | undefined, of: { shortId: string; wid: number }): CountPlan {
  const before = fromTenThousandths(onHand);
  if (expected !== undefined && exact(expected) !== onHand) throw new CountExpectationFailed(of.shortId, of.wid, expected, before);
  return { before, delta: fromTenThousandths(exact(counted) - onHand) };
}

/**
 * The lots a Count that found fewer units takes: like an Issue, oldest
 * first, but held lots last (EXTENSIONS: a count removes what is not there,
 * and a hold is kept as long as units remain).
 */
export function countTake<L extends { units: number; hold: boolean }>(lots: readonly L[], units: number, of: { shortId: string; wid: number }): PickPlan<L> {
  return pick([...lots.filter((l) => !l.hold), ...lots.filter((l) => l.hold)], units, of);
}

function exact(value: number): bigint {
  const count = toTenThousandths(value);
  if (count === null) throw new RangeError(`${value} is not a DECIMAL(18,4) value`);
  return count;
}
