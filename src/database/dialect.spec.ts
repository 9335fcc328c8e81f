import { DataSource } from 'typeorm';
import { decimalParameter, isMysql } from './dialect.js';

describe('dialect', () => {
  // Neither is connected: the dialect is the data source's options'.
  const mysql = new DataSource({ type: 'mysql', database: 'unused' });
  const sqlite = new DataSource({ type: 'better-sqlite3', database: ':memory:' });

  it('tells MySQL/MariaDB from SQLite, by a data source or by a manager of one', () => {
    expect([isMysql(mysql), isMysql(mysql.manager), isMysql(mysql.createEntityManager())]).toEqual([true, true, true]);
    expect([isMysql(sqlite), isMysql(sqlite.manager)]).toEqual([false, false]);
  });

  it('casts a parameter compared with a decimal column on MySQL/MariaDB only', () => {
    expect(decimalParameter('seekValue', true)).toBe('CAST(:seekValue AS DECIMAL(40,4))');
    expect(decimalParameter('seekValue', false)).toBe(':seekValue');
  });
});
