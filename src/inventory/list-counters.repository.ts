import { Injectable } from '@nestjs/common';
import { MAX_SCOPE } from './list-counts.js';

/**
 * The statements that recompute every list counter (list_count, scopes as in
 * list-counts.ts) from the rows, into slot 0: for data written around the
 * service (the benchmark's seed, the query-plan checks), which run them on
 * their own connections. Migration ListCounters keeps its own copy of these
 * statements, as they were when it was written, and migration
 * DocumentCounters those of the documents' counters.
 */
@Injectable()
export class ListCountersRepository {
  /** The fill's statements for the dialect, in order. */
  fillStatements(d: 'mysql' | 'sqlite'): string[] {
    const text = (sql: string) => (d === 'mysql' ? `CAST(${sql} AS CHAR)` : `CAST(${sql} AS TEXT)`);
    const concat = (...parts: string[]) => (d === 'mysql' ? `CONCAT(${parts.join(', ')})` : parts.join(' || '));
    const wids = d === 'mysql' ? "GROUP_CONCAT(wID ORDER BY wID SEPARATOR ',')" : "group_concat(wID, ',' ORDER BY wID)";
    const insert = 'INSERT INTO list_count (list, scope, slot, n)';
    return [
      'DELETE FROM list_count',
      `${insert} SELECT 'lots', ${text('wID')}, 0, COUNT(*) FROM lot GROUP BY wID`,
      `${insert} SELECT 'items', 'all', 0, COUNT(*) FROM item`,
      `${insert} SELECT 'items', 'active', 0, COUNT(*) FROM item WHERE discontinued = 0`,
      `${insert} SELECT 'ledger', ${concat(text('COALESCE(fromWid, 0)'), "'>'", text('COALESCE(toWid, 0)'))}, 0, COUNT(*) FROM ledger_entry ` +
        'GROUP BY COALESCE(fromWid, 0), COALESCE(toWid, 0)',
      `${insert} SELECT 'stock', CASE WHEN LENGTH(s) > ${MAX_SCOPE} THEN '*' ELSE s END, 0, COUNT(*) ` +
        `FROM (SELECT ${wids} AS s FROM stock_level GROUP BY partNo) AS sets GROUP BY CASE WHEN LENGTH(s) > ${MAX_SCOPE} THEN '*' ELSE s END`,
      `${insert} SELECT 'allocations', ${text('wID')}, 0, COUNT(*) FROM allocation GROUP BY wID`,
      `${insert} SELECT 'expectations', ${text('wID')}, 0, COUNT(*) FROM expectation GROUP BY wID`,
    ];
  }
}
