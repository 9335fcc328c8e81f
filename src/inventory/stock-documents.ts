import type { Caller } from '../auth/caller.js';
import { Conflict, DomainError } from '../errors.js';
import { fromTenThousandths, storedTenThousandths } from '../quantity.js';
import type { Allocation, Expectation } from './documents.entities.js';
import { InsufficientStock } from './pick.js';
import type { LevelDelta } from './stock-changes.js';

/*
 * What a change of a stock document does, decided without the database
 * (EXTENSIONS "Every stock state the spec names"): the document after it and
 * what it adds to its stock_level row, or the refusal. The services lock the
 * row and the document, then apply the plan. Exact: ten-thousandths.
 */

/** A document id in a path that names none (404, like GET /Item/<partNo>). */
export class DocumentNotFound extends DomainError {
  constructor(kind: 'allocation' | 'expectation', id: number | string) {
    super('not_found', `No ${kind} ${String(id).slice(0, 20)}.`);
  }
}

/**
 * The document an id named, as the caller may see it: one that does not
 * exist, or of a warehouse out of the caller's scope, is no document (404,
 * the same answer for both: Caller.sees).
 */
export function seenDocument<D extends { wID: number }>(caller: Pick<Caller, 'sees'>, kind: 'allocation' | 'expectation', id: number | string, found: D | null | undefined): D {
  if (!found || !caller.sees(found.wID)) throw new DocumentNotFound(kind, id);
  return found;
}

/** A document id in a path: a whole number from 1 to 2147483647, else it names no document (404). */
export function documentId(raw: string, kind: 'allocation' | 'expectation'): number {
  const id = /^\d{1,10}$/.test(raw) ? Number(raw) : 0;
  if (id < 1 || id > 2_147_483_647) throw new DocumentNotFound(kind, raw);
  return id;
}

/** A change of an allocation that is done or cancelled: reason `allocation_closed`, one of the two this service adds to DECISIONS "Conflicts" (docs/api.md, "Errors"). */
export class AllocationClosed extends Conflict {
  constructor(a: Pick<Allocation, 'id' | 'state'>) {
    super(`Allocation ${a.id} is ${a.state}: it takes no more changes.`, { reason: 'allocation_closed', allocationId: a.id, state: a.state });
  }
}

/** A change of an expectation that is done or cancelled (reason `expectation_closed`). */
export class ExpectationClosed extends Conflict {
  constructor(e: Pick<Expectation, 'id' | 'state'>) {
    super(`Expectation ${e.id} is ${e.state}: it takes no more changes.`, { reason: 'expectation_closed', expectationId: e.id, state: e.state });
  }
}

/** A change of a document: the document after it, and what it adds to its item's stock_level row in its warehouse. */
export interface DocumentChange<D> {
  after: D;
  delta: LevelDelta;
}

type Of = { shortId: string };

/** What is left to ship on an allocation: units − shipped (of which `packed` is packed, the rest committed). */
export function allocationLeft(a: Pick<Allocation, 'units' | 'shipped'>): number {
  return fromTenThousandths(exact(a.units) - exact(a.shipped));
}

/** What is left on an allocation and not packed: what it counts in `committed`. */
export function allocationCommitted(a: Pick<Allocation, 'units' | 'shipped' | 'packed'>): number {
  return fromTenThousandths(exact(a.units) - exact(a.shipped) - exact(a.packed));
}

/** What is left to receive on an expectation (0 once a receipt passed it). */
export function expectationLeft(e: Pick<Expectation, 'units' | 'received'>): number {
  const left = exact(e.units) - exact(e.received);
  return left > 0n ? fromTenThousandths(left) : 0;
}

/** Pack: `units` of what is committed and not packed move to packed. */
export function planPack(a: Allocation, units: number, of: Of): DocumentChange<Allocation> {
  if (a.state !== 'open') throw new AllocationClosed(a);
  const committed = allocationCommitted(a);
  if (exact(units) > exact(committed)) throw new InsufficientStock(of.shortId, a.wID, units, committed);
  return { after: { ...a, packed: add(a.packed, units) }, delta: { committed: neg(units), packed: units } };
}

/**
 * An Issue of `units` against the allocation: packed units first, then
 * committed ones; more than is left → InsufficientStock naming what is left.
 * The allocation is done once nothing is left. The delta is the allocation's
 * part only (the Issue takes `inStock` itself).
 */
export function planShipment(a: Allocation, units: number, of: Of): DocumentChange<Allocation> {
  if (a.state !== 'open') throw new AllocationClosed(a);
  const left = allocationLeft(a);
  if (exact(units) > exact(left)) throw new InsufficientStock(of.shortId, a.wID, units, left);
  const fromPacked = exact(units) < exact(a.packed) ? units : a.packed;
  const fromCommitted = fromTenThousandths(exact(units) - exact(fromPacked));
  const shipped = add(a.shipped, units);
  const after: Allocation = { ...a, packed: fromTenThousandths(exact(a.packed) - exact(fromPacked)), shipped, state: exact(shipped) >= exact(a.units) ? 'done' : 'open' };
  return { after, delta: { committed: neg(fromCommitted), packed: neg(fromPacked) } };
}

/** Cancel: what is left, committed and packed, goes back to available. */
export function planAllocationCancel(a: Allocation): DocumentChange<Allocation> {
  if (a.state !== 'open') throw new AllocationClosed(a);
  return { after: { ...a, state: 'cancelled' }, delta: { committed: neg(allocationCommitted(a)), packed: neg(a.packed) } };
}

/**
 * The expiry of an open allocation past its `expiresAt`: its unpacked units
 * go back to available, its packed units never (EXTENSIONS). With nothing
 * packed it is cancelled; with packed units it stays open with them alone
 * (`units` becomes shipped + packed). Null when there is nothing to expire:
 * not open, not due, or nothing unpacked left (a second instance, or a
 * change since it was found, got there first).
 */
export function planExpiry(a: Allocation, now: Date): DocumentChange<Allocation> | null {
  if (a.state !== 'open' || !a.expiresAt || a.expiresAt.getTime() > now.getTime()) return null;
  const committed = allocationCommitted(a);
  if (exact(committed) <= 0n) return null;
  const after: Allocation = exact(a.packed) > 0n ? { ...a, units: add(a.shipped, a.packed) } : { ...a, state: 'cancelled' };
  return { after, delta: { committed: neg(committed) } };
}

/** The stock_level figure an expectation's left units count in: onOrder while ordered, aSN once shipped. */
function stageFigure(e: Pick<Expectation, 'stage'>): 'onOrder' | 'aSN' {
  return e.stage === 'shipped' ? 'aSN' : 'onOrder';
}

/**
 * A Receive of `units` against the expectation: what is left falls by them
 * (to 0 at most: the excess is simply received); done when nothing is left.
 */
export function planReceipt(e: Expectation, units: number): DocumentChange<Expectation> {
  if (e.state !== 'open') throw new ExpectationClosed(e);
  const left = expectationLeft(e);
  const counted = exact(units) < exact(left) ? units : left;
  const received = add(e.received, units);
  const after: Expectation = { ...e, received, state: exact(received) >= exact(e.units) ? 'done' : 'open' };
  return { after, delta: { [stageFigure(e)]: neg(counted) } };
}

/** Ship: what is left moves from onOrder to aSN (nothing moves when it is shipped already). */
export function planExpectationShipment(e: Expectation): DocumentChange<Expectation> {
  if (e.state !== 'open') throw new ExpectationClosed(e);
  if (e.stage === 'shipped') return { after: e, delta: {} };
  const left = expectationLeft(e);
  return { after: { ...e, stage: 'shipped' }, delta: { onOrder: neg(left), aSN: left } };
}

/** Cancel: what is left is no longer expected. */
export function planExpectationCancel(e: Expectation): DocumentChange<Expectation> {
  if (e.state !== 'open') throw new ExpectationClosed(e);
  return { after: { ...e, state: 'cancelled' }, delta: { [stageFigure(e)]: neg(expectationLeft(e)) } };
}

/** −value, never −0 (a delta of 0 is 0 in every answer and statement). */
function neg(value: number): number {
  return value === 0 ? 0 : -value;
}

function add(a: number, b: number): number {
  return fromTenThousandths(exact(a) + exact(b));
}

/** A document's amount (stored, or a request's, which has 4 places at most) as ten-thousandths: stored sums may pass the input bound. */
function exact(value: number): bigint {
  return storedTenThousandths(value);
}
