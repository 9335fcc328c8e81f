import { joinedJson } from './stock-events.js';

describe('joinedJson', () => {
  const rest = { itemID: 'A-1', partNo: 7, reasonCode: null, reference: `O'B "x" \\`, clientId: 'c', levels: [{ wid: 1, inStock: 2, onHold: 0, available: 2 }] };
  const spread = (answer: object, more: object) => JSON.stringify({ ...answer, ...more });

  it.each([
    ['a Receive', { status: 'received', recNo: 3, lot: { recNo: 3, partNo: 7, received: new Date('2026-01-02T03:04:05.678Z'), shipped: null, hold: false } }],
    ['an Issue', { status: 'issued', units: 1.5, lots: [{ recNo: 1, fromRecNo: 2, units: 1.5 }] }],
    ['a Count', { status: 'counted', before: 1, counted: 2, delta: 1, lots: [] }],
    ['an empty answer', {}],
    ['an answer with undefined values', { status: 'moved', units: undefined }],
  ])('writes the text of the spread object for %s', (_, answer) => {
    const text = joinedJson(answer, rest);
    expect(text).toBe(spread(answer, rest));
    expect(JSON.parse(text)).toEqual(JSON.parse(spread(answer, rest)));
  });

  it('writes the text of the spread object when rest is empty', () => {
    expect(joinedJson({ status: 'held', units: 1 }, {})).toBe('{"status":"held","units":1}');
  });

  it("lets rest's value win where a key is in both, once, in the answer's place, as the spread does", () => {
    const answer = { status: 'received', partNo: 1, recNo: 2 };
    expect(joinedJson(answer, rest)).toBe(spread(answer, rest));
    expect(joinedJson(answer, rest).match(/"partNo"/g)).toHaveLength(1);
  });
});
