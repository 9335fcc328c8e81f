import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Page totals that follow the page, not the data: `stock_count` keeps how many items have a stock_level row,
 * per warehouse (scope = wID) and in any (scope = 0); the newest-first lot index carries recNo and wID, so a lot
 * page's keys are read from the index alone and the warehouse filter needs no row look-up.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class ListCounts1763805000000 implements MigrationInterface {
  name = 'ListCounts1763805000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "stock_count" (
      "scope" int NOT NULL PRIMARY KEY,
      "items" int NOT NULL)`);
    await q.query('INSERT INTO "stock_count" ("scope", "items") SELECT 0, COUNT(DISTINCT "partNo") FROM "stock_level"');
    await q.query('INSERT INTO "stock_count" ("scope", "items") SELECT "wID", COUNT(*) FROM "stock_level" GROUP BY "wID"');
    await q.query('DROP INDEX "IX_lot_received"');
    // GET /Inventory newest first over the caller's warehouses: keys, order and filter from the index alone.
    await q.query('CREATE INDEX "IX_lot_received_recNo_wID" ON "lot" ("received", "recNo", "wID")');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX "IX_lot_received_recNo_wID"');
    await q.query('CREATE INDEX "IX_lot_received" ON "lot" ("received")');
    await q.query('DROP TABLE "stock_count"');
  }
}
