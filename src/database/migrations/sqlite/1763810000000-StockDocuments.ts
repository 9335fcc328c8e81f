import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Allocations (outbound) and expectations (inbound), the documents behind a stock level's `committed`, `packed`,
 * `onOrder` and `aSN`, which stock_level now stores beside `inStock` and `onHold`; `available` becomes
 * inStock - onHold - committed - packed (dropped and added again: a generated column's expression is not altered in
 * place; VIRTUAL, as SQLite adds no stored one to a table; rounded to 4 places, since SQLite computes it in doubles).
 * Each list filter and order has its index; `IX_allocation_expiry` serves the expiry's look for open allocations past
 * their `expiresAt`.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class StockDocuments1763810000000 implements MigrationInterface {
  name = 'StockDocuments1763810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX "IX_stock_level_wID_available"');
    await q.query('ALTER TABLE "stock_level" DROP COLUMN "available"');
    for (const column of ['committed', 'packed', 'onOrder', 'aSN']) {
      await q.query(`ALTER TABLE "stock_level" ADD COLUMN "${column}" decimal(18,4) NOT NULL DEFAULT 0`);
    }
    await q.query('ALTER TABLE "stock_level" ADD COLUMN "available" decimal(19,4) GENERATED ALWAYS AS (ROUND("inStock" - "onHold" - "committed" - "packed", 4)) VIRTUAL');
    await q.query('CREATE INDEX "IX_stock_level_wID_available" ON "stock_level" ("wID", "available", "partNo")');
    await q.query(`CREATE TABLE "allocation" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "partNo" int NOT NULL,
      "wID" int NOT NULL,
      "reference" varchar(64) NOT NULL,
      "units" decimal(18,4) NOT NULL,
      "packed" decimal(18,4) NOT NULL DEFAULT 0,
      "shipped" decimal(18,4) NOT NULL DEFAULT 0,
      "state" varchar(16) NOT NULL,
      "expiresAt" datetime NULL,
      "created" datetime NOT NULL,
      "modified" datetime NOT NULL,
      CONSTRAINT "FK_allocation_item" FOREIGN KEY ("partNo") REFERENCES "item" ("partNo"),
      CONSTRAINT "FK_allocation_warehouse" FOREIGN KEY ("wID") REFERENCES "warehouse" ("wID"))`);
    await q.query(`CREATE TABLE "expectation" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "partNo" int NOT NULL,
      "wID" int NOT NULL,
      "reference" varchar(64) NOT NULL,
      "units" decimal(18,4) NOT NULL,
      "received" decimal(18,4) NOT NULL DEFAULT 0,
      "stage" varchar(16) NOT NULL,
      "state" varchar(16) NOT NULL,
      "due" datetime NULL,
      "created" datetime NOT NULL,
      "modified" datetime NOT NULL,
      CONSTRAINT "FK_expectation_item" FOREIGN KEY ("partNo") REFERENCES "item" ("partNo"),
      CONSTRAINT "FK_expectation_warehouse" FOREIGN KEY ("wID") REFERENCES "warehouse" ("wID"))`);
    for (const table of ['allocation', 'expectation']) {
      // The lists by id (default): of one warehouse, and filtered by item, reference or state (each walks id, its warehouse
      // in the index: the page and its COUNT read no row).
      await q.query(`CREATE INDEX "IX_${table}_wID_id" ON "${table}" ("wID", "id")`);
      await q.query(`CREATE INDEX "IX_${table}_partNo_id_wID" ON "${table}" ("partNo", "id", "wID")`);
      await q.query(`CREATE INDEX "IX_${table}_reference_id_wID" ON "${table}" ("reference", "id", "wID")`);
      await q.query(`CREATE INDEX "IX_${table}_state_id_wID" ON "${table}" ("state", "id", "wID")`);
      // sort=modified and modifiedSince: over several warehouses, and of one.
      await q.query(`CREATE INDEX "IX_${table}_modified_id_wID" ON "${table}" ("modified", "id", "wID")`);
      await q.query(`CREATE INDEX "IX_${table}_wID_modified_id" ON "${table}" ("wID", "modified", "id")`);
    }
    // The expiry: open allocations whose expiresAt has passed.
    await q.query('CREATE INDEX "IX_allocation_expiry" ON "allocation" ("state", "expiresAt")');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "expectation"');
    await q.query('DROP TABLE "allocation"');
    await q.query('DROP INDEX "IX_stock_level_wID_available"');
    await q.query('ALTER TABLE "stock_level" DROP COLUMN "available"');
    for (const column of ['committed', 'packed', 'onOrder', 'aSN']) await q.query(`ALTER TABLE "stock_level" DROP COLUMN "${column}"`);
    await q.query('ALTER TABLE "stock_level" ADD COLUMN "available" decimal(19,4) GENERATED ALWAYS AS ("inStock" - "onHold") VIRTUAL');
    await q.query('CREATE INDEX "IX_stock_level_wID_available" ON "stock_level" ("wID", "available", "partNo")');
  }
}
