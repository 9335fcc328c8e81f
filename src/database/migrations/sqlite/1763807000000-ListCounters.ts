import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `list_count`: exact list totals kept by the transactions that change the rows (src/inventory/list-counts.ts),
 * filled here from the rows already there, into slot 0. Stock scopes longer than 1000 characters are kept under "*".
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class ListCounters1763807000000 implements MigrationInterface {
  name = 'ListCounters1763807000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE "list_count" ("list" varchar(16) NOT NULL, "scope" varchar(1000) NOT NULL, "slot" smallint NOT NULL, "n" bigint NOT NULL, PRIMARY KEY ("list", "scope", "slot"))');
    await q.query('DELETE FROM list_count');
    await q.query("INSERT INTO list_count (list, scope, slot, n) SELECT 'lots', CAST(wID AS TEXT), 0, COUNT(*) FROM lot GROUP BY wID");
    await q.query("INSERT INTO list_count (list, scope, slot, n) SELECT 'items', 'all', 0, COUNT(*) FROM item");
    await q.query("INSERT INTO list_count (list, scope, slot, n) SELECT 'items', 'active', 0, COUNT(*) FROM item WHERE discontinued = 0");
    await q.query("INSERT INTO list_count (list, scope, slot, n) SELECT 'ledger', CAST(COALESCE(fromWid, 0) AS TEXT) || '>' || CAST(COALESCE(toWid, 0) AS TEXT), 0, COUNT(*) FROM ledger_entry GROUP BY COALESCE(fromWid, 0), COALESCE(toWid, 0)");
    await q.query("INSERT INTO list_count (list, scope, slot, n) SELECT 'stock', CASE WHEN LENGTH(s) > 1000 THEN '*' ELSE s END, 0, COUNT(*) FROM (SELECT group_concat(wID, ',' ORDER BY wID) AS s FROM stock_level GROUP BY partNo) AS sets GROUP BY CASE WHEN LENGTH(s) > 1000 THEN '*' ELSE s END");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "list_count"');
  }
}
