import * as mysql from './mysql/1763806000000-NfkcKeys.js';
import * as sqlite from './sqlite/1763806000000-NfkcKeys.js';

// Each dialect's migration carries its own frozen copy of the plan: both are checked.
describe.each([
  ['MySQL/MariaDB', mysql],
  ['SQLite', sqlite],
])('NfkcKeys (%s): recomputing stored keys with a new fold', (_, { nfcFold, nfkcFold, planKeys }) => {
  type KeyRow = Parameters<typeof planKeys>[0][number];
  const row = (id: number, source: string, key = nfcFold(source)): KeyRow => ({ id, source, key });

  it('folds as the service did when it was written: NFKC, lower case, NFKC', () => {
    expect(nfkcFold('ＡＢＣ-1')).toBe('abc-1');
    expect(nfkcFold('ÄBC-1')).toBe('äbc-1');
    expect(nfcFold('ＡＢＣ-1')).toBe('ａｂｃ-1');
  });

  it('rewrites the keys that change and leaves the others alone', () => {
    const rows = [row(1, 'abc-1'), row(2, 'ＸＹＺ-1')];
    expect(planKeys(rows, nfkcFold, 64)).toEqual({ updates: [{ row: rows[1], key: 'xyz-1' }], shadowed: [] });
  });

  it('gives a shared key to the row already holding it, even when it is not the oldest', () => {
    const rows = [row(1, 'ＡＢＣ-1'), row(2, 'abc-1')];
    const plan = planKeys(rows, nfkcFold, 64);
    expect(plan.updates).toEqual([]);
    expect(plan.shadowed).toEqual([{ row: rows[0], wanted: 'abc-1', holder: rows[1] }]);
  });

  it('else to the oldest; the others keep their old keys, which no new key can equal', () => {
    const rows = [row(1, 'ＡＢＣ-1'), row(2, 'Ａｂｃ-1')];
    const plan = planKeys(rows, nfkcFold, 64);
    expect(plan.updates).toEqual([{ row: rows[0], key: 'abc-1' }]);
    expect(plan.shadowed).toEqual([{ row: rows[1], wanted: 'abc-1', holder: rows[0] }]);
  });

  it('keeps the old key of a row whose new key would not fit the column', () => {
    const rows = [row(1, '\ufdfa'.repeat(4))];
    expect(planKeys(rows, nfkcFold, 64)).toEqual({ updates: [], shadowed: [{ row: rows[0], wanted: nfkcFold(rows[0].source), holder: null }] });
  });

  it('moves a kept key that some row now takes out of the way, to a key no input can produce', () => {
    // Only possible with a fold that is not idempotent; the plan must still give unique keys.
    const rows = [row(1, 'a', 'x'), row(2, 'b', 'y'), row(3, 'c', 'z')];
    const fold = (s: string) => ({ a: 'x', b: 'x', c: 'y' })[s]!;
    const plan = planKeys(rows, fold, 64);
    const keys = new Map(rows.map((r) => [r.id, r.key]));
    for (const u of plan.updates) keys.set(u.row.id, u.key);
    expect(new Set(keys.values()).size).toBe(3);
    expect(keys.get(2)).toMatch(/^\u0001/);
  });

  it('goes down with the previous fold', () => {
    const rows = [row(1, 'ＡＢＣ-1', 'abc-1')];
    expect(planKeys(rows, nfcFold, 64).updates).toEqual([{ row: rows[0], key: 'ａｂｃ-1' }]);
  });
});
