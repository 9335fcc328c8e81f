import { DomainError } from '../errors.js';
import { CountExpectationFailed, countFilter, countTake, holdFilter, InsufficientStock, planCount, issueFilter, moveFilter, pick, pickOrAll, type PickPlan, receivedDay } from './pick.js';

const MAX = 99_999_999_999.9999;
const WHERE = { shortId: 'BOLT-1', wid: 3 };

interface TestLot {
  recNo: number;
  units: number;
}

/** Candidate lots as the query returns them, oldest first; recNos 1, 2, … unless given. */
function lots(...units: number[]): TestLot[] {
  return units.map((u, i) => ({ recNo: i + 1, units: u }));
}

function recNos(plan: PickPlan<TestLot>): { whole: number[]; part: [number, number] | null } {
  return { whole: plan.whole.map((l) => l.recNo), part: plan.part && [plan.part.lot.recNo, plan.part.units] };
}

function insufficient(fn: () => unknown): InsufficientStock {
  try {
    fn();
  } catch (error) {
    if (error instanceof InsufficientStock) return error;
    throw error;
  }
  throw new Error('expected InsufficientStock');
}

/** A small deterministic generator, so a failing case can be replayed. */
function prng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
}

describe('pick', () => {
  it('takes lots whole, oldest first, when the units end on a lot boundary', () => {
    expect(recNos(pick(lots(2, 3, 5), 5, WHERE))).toEqual({ whole: [1, 2], part: null });
  });

  it('takes the last lot needed in part, and only that one', () => {
    expect(recNos(pick(lots(2, 3, 5), 6, WHERE))).toEqual({ whole: [1, 2], part: [3, 1] });
    expect(recNos(pick(lots(5, 5), 1, WHERE))).toEqual({ whole: [], part: [1, 1] });
  });

  it('takes every lot whole when they hold exactly the units asked', () => {
    expect(recNos(pick(lots(2, 3, 5), 10, WHERE))).toEqual({ whole: [1, 2, 3], part: null });
  });

  it('refuses more than the lots hold, naming requested and available units, as a 409 conflict', () => {
    const error = insufficient(() => pick(lots(2, 3, 5), 10.5, WHERE));
    expect(error).toBeInstanceOf(DomainError);
    expect(error.code).toBe('conflict');
    expect(error.message).toBe('Insufficient stock: requested 10.5 units of BOLT-1 in warehouse 3, 10 available.');
  });

  it('refuses any units when there is no candidate lot, with 0 available', () => {
    expect(insufficient(() => pick([], 0.0001, WHERE)).message).toBe('Insufficient stock: requested 0.0001 units of BOLT-1 in warehouse 3, 0 available.');
  });

  it('keeps the order it is given: lots are taken as listed, never re-sorted by recNo or size', () => {
    const given = [
      { recNo: 9, units: 1 },
      { recNo: 4, units: 100 },
      { recNo: 7, units: 2 },
      { recNo: 1, units: 3 },
    ];
    expect(recNos(pick(given, 103, WHERE))).toEqual({ whole: [9, 4, 7], part: null });
    expect(recNos(pick(given, 104, WHERE))).toEqual({ whole: [9, 4, 7], part: [1, 1] });
    expect(recNos(pick(given, 2, WHERE))).toEqual({ whole: [9], part: [4, 1] });
    expect(recNos(pick(given, 3, WHERE))).toEqual({ whole: [9], part: [4, 2] });
  });

  it('returns the lots themselves and leaves them unchanged', () => {
    const given = lots(2, 3);
    const plan = pick(given, 4, WHERE);
    expect(plan.whole[0]).toBe(given[0]);
    expect(plan.part?.lot).toBe(given[1]);
    expect(given).toEqual(lots(2, 3));
  });

  describe('exact decimals', () => {
    it('takes 0.0001, the smallest unit, whole or in part', () => {
      expect(recNos(pick(lots(0.0001), 0.0001, WHERE))).toEqual({ whole: [1], part: null });
      expect(recNos(pick(lots(0.0002), 0.0001, WHERE))).toEqual({ whole: [], part: [1, 0.0001] });
      expect(insufficient(() => pick(lots(0.0001, 0.0001), 0.0003, WHERE)).message).toContain('requested 0.0003 units of BOLT-1 in warehouse 3, 0.0002 available');
    });

    it('adds lots of 0.1 exactly: three of them are 0.3, and 0.1 + 0.2 is 0.3', () => {
      expect(recNos(pick(lots(0.1, 0.1, 0.1), 0.3, WHERE))).toEqual({ whole: [1, 2, 3], part: null });
      expect(recNos(pick(lots(0.1, 0.2), 0.3, WHERE))).toEqual({ whole: [1, 2], part: null });
      expect(recNos(pick(lots(0.1, 0.2, 0.7), 0.3, WHERE))).toEqual({ whole: [1, 2], part: null });
      expect(recNos(pick(lots(0.1, 0.7), 0.3, WHERE))).toEqual({ whole: [1], part: [2, 0.2] });
      expect(insufficient(() => pick(lots(0.1, 0.2), 0.3001, WHERE)).message).toContain('0.3 available');
    });

    it('takes ten thousand lots of 0.1 as exactly 1,000 units', () => {
      const tenths = Array.from({ length: 10_000 }, (_, i) => ({ recNo: i + 1, units: 0.1 }));
      const plan = pick(tenths, 1000, WHERE);
      expect(plan.whole).toHaveLength(10_000);
      expect(plan.part).toBeNull();
      expect(insufficient(() => pick(tenths, 1000.0001, WHERE)).message).toContain('1000 available');
    });

    it('works at the bound, 99,999,999,999.9999 units', () => {
      expect(recNos(pick(lots(MAX), MAX, WHERE))).toEqual({ whole: [1], part: null });
      expect(recNos(pick(lots(MAX), 0.0001, WHERE))).toEqual({ whole: [], part: [1, 0.0001] });
      expect(recNos(pick(lots(MAX), 99_999_999_999.9998, WHERE))).toEqual({ whole: [], part: [1, 99_999_999_999.9998] });
      expect(recNos(pick(lots(0.0001, 99_999_999_999.9998), MAX, WHERE))).toEqual({ whole: [1, 2], part: null });
      expect(recNos(pick(lots(0.0001, MAX), MAX, WHERE))).toEqual({ whole: [1], part: [2, 99_999_999_999.9998] });
      expect(insufficient(() => pick(lots(99_999_999_999.9998), MAX, WHERE)).message).toBe(
        'Insufficient stock: requested 99999999999.9999 units of BOLT-1 in warehouse 3, 99999999999.9998 available.',
      );
    });
  });

  it('picks over 10,000 lots quickly, splitting only the last one taken', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => ({ recNo: i + 1, units: 1 + (i % 7) * 0.0001 }));
    const total = many.reduce((sum, l) => sum + BigInt(Math.round(l.units * 10_000)), 0n);
    const started = Date.now();
    const plan = pick(many, Number(total - 5n) / 10_000, WHERE);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(plan.whole).toEqual(many.slice(0, 9_999));
    // The last lot holds 1.0003 (9,999 % 7 = 3); 0.0005 short of everything leaves 0.9998 taken from it.
    expect(plan.part).toEqual({ lot: many[9_999], units: 0.9998 });
    expect(recNos(pick(many, 1, WHERE))).toEqual({ whole: [1], part: null });
  });

  it('always takes a prefix of the lots whole and at most the next one in part, summing exactly to the units (random cases)', () => {
    const random = prng(42);
    for (let run = 0; run < 300; run++) {
      const given = Array.from({ length: 1 + Math.floor(random() * 20) }, (_, i) => ({ recNo: 100 - i, units: (1 + Math.floor(random() * 50_000)) / 10_000 }));
      const count = (u: number) => BigInt(Math.round(u * 10_000));
      const available = given.reduce((sum, l) => sum + count(l.units), 0n);
      const wanted = 1n + BigInt(Math.floor(random() * Number(available)));
      const plan = pick(given, Number(wanted) / 10_000, WHERE);
      const k = plan.whole.length;
      expect(plan.whole).toEqual(given.slice(0, k));
      const whole = plan.whole.reduce((sum, l) => sum + count(l.units), 0n);
      if (plan.part) {
        expect(plan.part.lot).toBe(given[k]);
        expect(count(plan.part.units)).toBeGreaterThan(0n);
        expect(count(plan.part.units)).toBeLessThan(count(given[k].units));
        expect(whole + count(plan.part.units)).toBe(wanted);
      } else {
        expect(whole).toBe(wanted);
      }
    }
  });
});

describe('pickOrAll (Hold and Release)', () => {
  it('takes every lot whole, in order, without units', () => {
    expect(recNos(pickOrAll(lots(2, 3, 5), undefined, WHERE))).toEqual({ whole: [1, 2, 3], part: null });
  });

  it('picks like Issue with units: oldest first, the last lot split', () => {
    expect(recNos(pickOrAll(lots(2, 3, 5), 6.5, WHERE))).toEqual({ whole: [1, 2], part: [3, 1.5] });
    expect(recNos(pickOrAll(lots(2, 3), 2, WHERE))).toEqual({ whole: [1], part: null });
  });

  it('refuses when nothing matches, with or without units, naming what was asked and what there is', () => {
    expect(insufficient(() => pickOrAll([], undefined, WHERE)).message).toBe('Insufficient stock: requested all matching units of BOLT-1 in warehouse 3, 0 available.');
    expect(insufficient(() => pickOrAll([], 1, WHERE)).message).toBe('Insufficient stock: requested 1 units of BOLT-1 in warehouse 3, 0 available.');
    expect(insufficient(() => pickOrAll(lots(2, 3), 5.0001, WHERE)).message).toBe('Insufficient stock: requested 5.0001 units of BOLT-1 in warehouse 3, 5 available.');
  });
});

describe('planCount and countTake (Count)', () => {
  const stock = (...lots: Array<[units: number, hold: boolean]>) => lots.map(([units, hold], i) => ({ recNo: i + 1, units, hold }));
  /** Units on hand in ten-thousandths, as the lot sum gives them. */
  const onHand = (units: number) => BigInt(Math.round(units * 10_000));

  it('compares `expected` with the units on hand, exactly, before anything else', () => {
    expect(() => planCount(onHand(3.0001), 9, 3, WHERE)).toThrow(CountExpectationFailed);
    expect(() => planCount(onHand(3.0001), 9, 3, WHERE)).toThrow('Count of BOLT-1 in warehouse 3 expected 3 units on hand, but 3.0001 are.');
    expect(planCount(onHand(3.0001), 9, 3.0001, WHERE)).toEqual({ before: 3.0001, delta: 5.9999 });
  });

  it('gives the difference to what was counted, up, none or down', () => {
    expect(planCount(onHand(5), 5, undefined, WHERE)).toEqual({ before: 5, delta: 0 });
    expect(planCount(0n, 0, 0, WHERE)).toEqual({ before: 0, delta: 0 });
    expect(planCount(0n, 0.0001, undefined, WHERE)).toEqual({ before: 0, delta: 0.0001 });
    expect(planCount(onHand(12), 6, 12, WHERE)).toEqual({ before: 12, delta: -6 });
  });

  it('takes the difference oldest first but held lots last, splitting the last one', () => {
    expect(recNos(countTake(stock([4, true], [3, false], [5, false]), 6, WHERE))).toEqual({ whole: [2], part: [3, 3] });
    expect(recNos(countTake(stock([4, true], [3, false], [5, false]), 10.5, WHERE))).toEqual({ whole: [2, 3], part: [1, 2.5] });
  });

  it('counts held lots in, and can count everything away', () => {
    expect(recNos(countTake(stock([4, true], [3, false]), 7, WHERE))).toEqual({ whole: [2, 1], part: null });
  });

  it('selects with Issue selectors but no recno, held lots included', () => {
    expect(countFilter({ spot: 'A', serial: 'S', serial2: 'T', rfidTag: 'R' })).toStrictEqual({ spot: 'A', serial: 'S', serial2: 'T', rFIDTag: 'R', includeHeld: true });
  });
});

describe('lot filters', () => {
  it('Hold takes the Issue selectors over lots not held; Release over held lots only', () => {
    const selectors = { recno: 4, spot: 'A', serial: 'S1' };
    expect(holdFilter(selectors, true)).toStrictEqual({ ...issueFilter(selectors), includeHeld: false });
    expect(holdFilter(selectors, false)).toStrictEqual({ ...issueFilter(selectors), includeHeld: true, onlyHeld: true });
  });


  it('maps the Issue selectors to lot fields and leaves held lots out', () => {
    expect(issueFilter({ recno: 12, spot: 'A-1', serial: 'S1', serial2: 'S2', rfidTag: 'TAG' })).toStrictEqual({
      recNo: 12,
      spot: 'A-1',
      serial: 'S1',
      serial2: 'S2',
      rFIDTag: 'TAG',
      includeHeld: false,
    });
    expect(issueFilter({})).toStrictEqual({ recNo: undefined, spot: undefined, serial: undefined, serial2: undefined, rFIDTag: undefined, includeHeld: false });
  });

  it('maps the Move selectors, fromSpot as the spot, and takes held lots too', () => {
    const f = moveFilter({ wid: 1, shipToWid: 2, recno: 5, fromSpot: 'A', toSpot: 'B', serial: 'S1', serial2: 'S2', rfidTag: 'TAG' });
    expect(f).toStrictEqual({ recNo: 5, spot: 'A', serial: 'S1', serial2: 'S2', rFIDTag: 'TAG', includeHeld: true, notAtSpot: undefined, received: undefined });
  });

  it('leaves out lots already at the destination spot only for a move within the warehouse', () => {
    expect(moveFilter({ wid: 1, toSpot: 'B' }).notAtSpot).toBe('B');
    expect(moveFilter({ wid: 1, shipToWid: 1, toSpot: 'B' }).notAtSpot).toBe('B');
    expect(moveFilter({ wid: 1, shipToWid: 2, toSpot: 'B' }).notAtSpot).toBeUndefined();
    expect(moveFilter({ wid: 1, shipToWid: 2 }).notAtSpot).toBeUndefined();
  });

  it('turns `received` into its whole UTC day', () => {
    expect(moveFilter({ wid: 1, shipToWid: 2, received: new Date('2024-03-05T17:30:00Z') }).received).toEqual({
      from: new Date('2024-03-05T00:00:00Z'),
      before: new Date('2024-03-06T00:00:00Z'),
    });
  });

  it('takes the UTC day at its edges, across month ends and leap days, whatever offset the time was given in', () => {
    expect(receivedDay(new Date('2024-03-05T00:00:00.000Z'))).toEqual({ from: new Date('2024-03-05T00:00:00Z'), before: new Date('2024-03-06T00:00:00Z') });
    expect(receivedDay(new Date('2024-03-05T23:59:59.999Z'))).toEqual({ from: new Date('2024-03-05T00:00:00Z'), before: new Date('2024-03-06T00:00:00Z') });
    expect(receivedDay(new Date('2024-02-29T12:00:00Z'))).toEqual({ from: new Date('2024-02-29T00:00:00Z'), before: new Date('2024-03-01T00:00:00Z') });
    expect(receivedDay(new Date('2023-12-31T23:00:00Z')).before).toEqual(new Date('2024-01-01T00:00:00Z'));
    expect(receivedDay(new Date('2024-03-05T21:30:00-05:00')).from).toEqual(new Date('2024-03-06T00:00:00Z'));
  });
});
