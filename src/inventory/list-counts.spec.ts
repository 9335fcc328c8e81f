import { ledgerCountChanges, stockScope } from './list-counts.js';

const net = (rows: Parameters<typeof ledgerCountChanges>[0]) => {
  const out: Record<string, number> = {};
  for (const c of ledgerCountChanges(rows)) out[`${c.list} ${c.scope}`] = (out[`${c.list} ${c.scope}`] ?? 0) + c.by;
  return out;
};

describe('the list counter changes of ledger rows', () => {
  it('counts a received lot in its warehouse', () => {
    expect(net([{ recNo: 5, fromRecNo: null, fromWid: null, toWid: 2 }])).toEqual({ 'ledger 0>2': 1, 'lots 2': 1 });
  });

  it('counts no lot for one issued whole (archived in place), and a new one for the archived part of a split', () => {
    expect(net([{ recNo: 5, fromRecNo: 5, fromWid: 1, toWid: null }, { recNo: 9, fromRecNo: 6, fromWid: 1, toWid: null }])).toEqual({ 'ledger 1>0': 2, 'lots 1': 1 });
  });

  it('moves a whole lot between warehouses, and counts a part split off into the destination', () => {
    expect(net([{ recNo: 5, fromRecNo: 5, fromWid: 1, toWid: 3 }, { recNo: 9, fromRecNo: 6, fromWid: 1, toWid: 3 }])).toEqual({ 'ledger 1>3': 2, 'lots 1': -1, 'lots 3': 2 });
  });

  it('counts a move within one warehouse only when it splits a lot', () => {
    expect(net([{ recNo: 5, fromRecNo: 5, fromWid: 1, toWid: 1 }, { recNo: 9, fromRecNo: 6, fromWid: 1, toWid: 1 }])).toEqual({ 'ledger 1>1': 2, 'lots 1': 1 });
  });

  it('writes stock sets ascending, once each, and "*" past the longest scope kept', () => {
    expect(stockScope([3, 1, 2, 1])).toBe('1,2,3');
    expect(stockScope(Array.from({ length: 200 }, (_, i) => 1_000_000 + i))).toBe('*');
  });
});
