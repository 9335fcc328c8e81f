import type { Allocation, Expectation } from './documents.entities.js';
import { assertAvailable } from './pick.js';
import {
  AllocationClosed,
  documentId,
  DocumentNotFound,
  ExpectationClosed,
  planAllocationCancel,
  planExpectationCancel,
  planExpectationShipment,
  planExpiry,
  planPack,
  planReceipt,
  planShipment,
} from './stock-documents.js';

const at = new Date('2026-03-01T10:00:00.000Z');
const allocation = (over: Partial<Allocation> = {}): Allocation => ({
  id: 7, partNo: 1, wID: 1, reference: 'SO-1', units: 6, packed: 0, shipped: 0, state: 'open', expiresAt: null, created: at, modified: at, ...over,
});
const expectation = (over: Partial<Expectation> = {}): Expectation => ({
  id: 9, partNo: 1, wID: 1, reference: 'PO-1', units: 10, received: 0, stage: 'ordered', state: 'open', due: null, created: at, modified: at, ...over,
});
const of = { shortId: 'BOLT' };

describe('allocations, decided', () => {
  it('packs committed units, exactly, and refuses more than is committed and not packed, naming what is', () => {
    expect(planPack(allocation({ packed: 0.1 }), 0.2, of)).toEqual({ after: allocation({ packed: 0.3 }), delta: { committed: -0.2, packed: 0.2 } });
    expect(() => planPack(allocation({ packed: 2, shipped: 1 }), 3.0001, of)).toThrow(expect.objectContaining({ details: expect.objectContaining({ reason: 'insufficient_stock', requested: 3.0001, available: 3 }) }));
  });

  it('ships packed units first, then committed ones, and is done when nothing is left', () => {
    expect(planShipment(allocation({ packed: 2 }), 3, of)).toEqual({ after: allocation({ packed: 0, shipped: 3 }), delta: { committed: -1, packed: -2 } });
    expect(planShipment(allocation({ packed: 2 }), 1, of)).toEqual({ after: allocation({ packed: 1, shipped: 1 }), delta: { committed: 0, packed: -1 } });
    expect(planShipment(allocation({ shipped: 4 }), 2, of).after.state).toBe('done');
    expect(() => planShipment(allocation({ shipped: 4 }), 2.0001, of)).toThrow(expect.objectContaining({ details: expect.objectContaining({ available: 2 }) }));
  });

  it('cancels what is left, committed and packed', () => {
    expect(planAllocationCancel(allocation({ packed: 1, shipped: 2 }))).toEqual({ after: allocation({ packed: 1, shipped: 2, state: 'cancelled' }), delta: { committed: -3, packed: -1 } });
  });

  it('refuses every change of a done or cancelled allocation as allocation_closed', () => {
    for (const state of ['done', 'cancelled'] as const) {
      const closed = allocation({ state });
      for (const change of [() => planPack(closed, 1, of), () => planShipment(closed, 1, of), () => planAllocationCancel(closed)]) {
        expect(change).toThrow(AllocationClosed);
        expect(change).toThrow(expect.objectContaining({ details: { reason: 'allocation_closed', allocationId: 7, state } }));
      }
    }
  });

  it('expires an allocation due: cancelled when nothing is packed; with packed units, only its unpacked units are released and it stays open', () => {
    const due = new Date(at.getTime() - 1);
    expect(planExpiry(allocation({ expiresAt: due, shipped: 1 }), at)).toEqual({ after: allocation({ expiresAt: due, shipped: 1, state: 'cancelled' }), delta: { committed: -5 } });
    expect(planExpiry(allocation({ expiresAt: due, shipped: 1, packed: 2 }), at)).toEqual({ after: allocation({ expiresAt: due, shipped: 1, packed: 2, units: 3 }), delta: { committed: -3 } });
  });

  it('expires nothing not due, not open, or with nothing unpacked left (the second of two instances finds nothing)', () => {
    expect(planExpiry(allocation({ expiresAt: null }), at)).toBeNull();
    expect(planExpiry(allocation({ expiresAt: new Date(at.getTime() + 1) }), at)).toBeNull();
    expect(planExpiry(allocation({ expiresAt: at, state: 'cancelled' }), at)).toBeNull();
    expect(planExpiry(allocation({ expiresAt: at, packed: 6 }), at)).toBeNull();
    expect(planExpiry(allocation({ expiresAt: at, packed: 2, units: 2 }), at)).toBeNull();
  });
});

describe('expectations, decided', () => {
  it('lowers what is left by a receipt, in its stage, and closes it when nothing is left; the excess is simply received', () => {
    expect(planReceipt(expectation(), 4)).toEqual({ after: expectation({ received: 4 }), delta: { onOrder: -4 } });
    expect(planReceipt(expectation({ stage: 'shipped', received: 4 }), 6)).toEqual({ after: expectation({ stage: 'shipped', received: 10, state: 'done' }), delta: { aSN: -6 } });
    expect(planReceipt(expectation({ received: 8 }), 5)).toEqual({ after: expectation({ received: 13, state: 'done' }), delta: { onOrder: -2 } });
  });

  it('ships what is left from onOrder to aSN, once; cancels what is left', () => {
    expect(planExpectationShipment(expectation({ received: 3 }))).toEqual({ after: expectation({ received: 3, stage: 'shipped' }), delta: { onOrder: -7, aSN: 7 } });
    expect(planExpectationShipment(expectation({ stage: 'shipped' }))).toEqual({ after: expectation({ stage: 'shipped' }), delta: {} });
    expect(planExpectationCancel(expectation({ stage: 'shipped', received: 1 }))).toEqual({ after: expectation({ stage: 'shipped', received: 1, state: 'cancelled' }), delta: { aSN: -9 } });
  });

  it('refuses every change of a done or cancelled expectation as expectation_closed', () => {
    const closed = expectation({ state: 'done', received: 10 });
    for (const change of [() => planReceipt(closed, 1), () => planExpectationShipment(closed), () => planExpectationCancel(closed)]) {
      expect(change).toThrow(ExpectationClosed);
      expect(change).toThrow(expect.objectContaining({ details: { reason: 'expectation_closed', expectationId: 9, state: 'done' } }));
    }
  });
});

describe('ids and available units', () => {
  it('reads a document id from a path, else names no document', () => {
    expect(documentId('42', 'allocation')).toBe(42);
    for (const raw of ['0', 'abc', '2147483648', '-1', '1.5']) expect(() => documentId(raw, 'expectation')).toThrow(DocumentNotFound);
  });

  it('takes no more than is available, naming the lesser of available and the matching lots; nothing at all while available is negative', () => {
    const where = { shortId: 'BOLT', wid: 1 };
    expect(() => assertAvailable(30_000n, 3, where)).not.toThrow();
    expect(() => assertAvailable(30_000n, 3.0001, where)).toThrow(expect.objectContaining({ details: expect.objectContaining({ requested: 3.0001, available: 3 }) }));
    expect(() => assertAvailable(30_000n, 4, where, 4, 10_000n)).toThrow(expect.objectContaining({ details: expect.objectContaining({ available: 1 }) }));
    expect(() => assertAvailable(-30_000n, 0.0001, where, null)).toThrow(expect.objectContaining({ details: expect.objectContaining({ requested: null, available: -3 }) }));
  });
});
