import { DataSource } from 'typeorm';
import { ENTITIES } from '../entities.js';
import type { EntityManager } from 'typeorm';
import { hydratesAsRead, jsonLiteral, jsonParameter, type SqlLiteral } from './statements.js';

/**
 * The hydrator copies a column's value instead of calling the driver's
 * prepareHydratedValue when `hydratesAsRead` says so: that must be exactly
 * what the driver would have returned, on both drivers, for every column of
 * every entity it applies to, whatever value a row can hold there.
 */
describe('hydratesAsRead', () => {
  const drivers: Array<[string, () => DataSource]> = [
    ['mysql', () => new DataSource({ type: 'mysql', database: 'unused', entities: ENTITIES })],
    ['better-sqlite3', () => new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: ENTITIES })],
  ];

  it.each(drivers)('copies only values that %s hands over unchanged', async (_name, make) => {
    const ds = make();
    // The entities' metadata without connecting (the MySQL driver needs no server for it).
    await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
    const copied = ds.entityMetadatas.flatMap((e) => e.columns.filter(hydratesAsRead));
    expect(copied.length).toBeGreaterThan(20);
    for (const column of copied) {
      for (const value of [null, 0, 7, -2147483648, 9007199254740991, '', 'S-1', '12345678901234567890', ' padded ']) {
        expect({ column: `${column.entityMetadata.name}.${column.propertyName}`, value: ds.driver.prepareHydratedValue(value, column) }).toEqual({
          column: `${column.entityMetadata.name}.${column.propertyName}`,
          value,
        });
      }
    }
    // And it never copies a column the driver converts or a transformer reads.
    for (const e of ds.entityMetadatas) {
      for (const c of e.columns) {
        if (c.transformer || ['decimal', 'datetime', 'boolean', 'json', 'simple-json', 'simple-array', 'date', 'time'].includes(String(c.type))) {
          expect(hydratesAsRead(c)).toBe(false);
        }
      }
    }
  });
});

/**
 * An event's JSON text goes into its INSERT as a literal the service writes
 * itself on MySQL/MariaDB (`jsonParameter`): it must read back as the same
 * text, and no text JSON.stringify can write may end the literal early.
 */
describe('jsonLiteral', () => {
  const texts = [
    JSON.stringify({ a: `O'Brien "10\\" pipe" \\' '' \\\\ ; -- %_ é 😀 \u2028 \u0000 \u001a \n \ud800` }),
    JSON.stringify("'"),
    JSON.stringify('\\'),
    JSON.stringify("\\'"),
    '{}',
  ];
  /** What MySQL reads from a single-quoted literal, with or without backslash escapes (only the escapes these texts can hold). */
  const read = (literal: string, backslashEscapes: boolean): string => {
    expect(literal.startsWith("'") && literal.endsWith("'")).toBe(true);
    let out = '';
    for (let i = 1; i < literal.length - 1; i++) {
      const c = literal[i];
      if (c === "'") {
        // Inside the literal a quote stands only doubled; a lone one would end it.
        expect(literal[i + 1]).toBe("'");
        out += "'";
        i++;
      } else if (c === '\\' && backslashEscapes) {
        out += literal[i + 1];
        i++;
      } else out += c;
    }
    return out;
  };

  it.each(texts)('reads back as %s with backslash escapes, the server default', (text) => {
    expect(read(jsonLiteral(text), true)).toBe(text);
  });

  it.each(texts)('reads back as %s under NO_BACKSLASH_ESCAPES', (text) => {
    expect(read(jsonLiteral(text, true), false)).toBe(text);
  });

  it('is what jsonParameter gives mysql2 on MySQL/MariaDB, and SQLite gets the text as it is', () => {
    const text = texts[0];
    const on = (type: string) => ({ connection: { options: { type } } }) as unknown as EntityManager;
    const param = jsonParameter(on('mysql'), text) as SqlLiteral;
    expect(param.toSqlString()).toBe(jsonLiteral(text));
    expect(param.toSqlString({ noBackslashEscapes: true })).toBe(jsonLiteral(text, true));
    expect(jsonParameter(on('better-sqlite3'), text)).toBe(text);
  });
});
