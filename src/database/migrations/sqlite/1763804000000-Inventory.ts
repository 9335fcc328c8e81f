import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The inventory tables: lots, the ledger, stock levels, stored Idempotency-Key answers. Column types differ
 * between dialects only where MySQL and SQLite differ (auto-increment keys, datetime precision, booleans, key collation).
 * Foreign keys are table constraints: MySQL 8 parses column-level REFERENCES and ignores them.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class Inventory1763804000000 implements MigrationInterface {
  name = 'Inventory1763804000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "lot" (
      "recNo" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "partNo" int NOT NULL,
      "wID" int NOT NULL,
      "spot" varchar(64) NOT NULL DEFAULT '',
      "units" decimal(18,4) NOT NULL,
      "received" datetime NOT NULL,
      "shipped" datetime NULL,
      "serial" varchar(64) NOT NULL DEFAULT '',
      "serial2" varchar(64) NOT NULL DEFAULT '',
      "rFIDTag" varchar(64) NOT NULL DEFAULT '',
      "remark" varchar(255) NOT NULL DEFAULT '',
      "hold" boolean NOT NULL DEFAULT 0,
      "jobID" int NOT NULL DEFAULT 0,
      "jobName" varchar(100) NOT NULL DEFAULT '',
      "associate" varchar(100) NOT NULL DEFAULT '',
      "active" boolean NOT NULL DEFAULT 1,
      "netWeight" decimal(18,4) NULL,
      "grossWeight" decimal(18,4) NULL,
      "price" decimal(18,4) NULL,
      "expires" datetime NULL,
      "supplier" int NULL,
      "poLine" int NULL,
      "modified" datetime NOT NULL,
      CONSTRAINT "FK_lot_item" FOREIGN KEY ("partNo") REFERENCES "item" ("partNo"),
      CONSTRAINT "FK_lot_warehouse" FOREIGN KEY ("wID") REFERENCES "warehouse" ("wID"))`);
    // Issue and Move: an item's in-stock lots in a warehouse, oldest first, locked.
    await q.query('CREATE INDEX "IX_lot_pick" ON "lot" ("partNo", "wID", "active", "received")');
    // GET /Inventory newest first, for all warehouses (replaced by ListCounts) and for one.
    await q.query('CREATE INDEX "IX_lot_received" ON "lot" ("received")');
    await q.query('CREATE INDEX "IX_lot_wID_received" ON "lot" ("wID", "received")');
    // modifiedSince on the lot lists.
    await q.query('CREATE INDEX "IX_lot_modified" ON "lot" ("modified")');
    await q.query(`CREATE TABLE "ledger_entry" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "operationId" varchar(36) NOT NULL,
      "operation" varchar(16) NOT NULL,
      "partNo" int NOT NULL,
      "recNo" int NOT NULL,
      "fromRecNo" int NULL,
      "fromWid" int NULL,
      "fromSpot" varchar(64) NULL,
      "toWid" int NULL,
      "toSpot" varchar(64) NULL,
      "units" decimal(18,4) NOT NULL,
      "reasonCode" int NULL,
      "reference" varchar(100) NOT NULL DEFAULT '',
      "remark" varchar(255) NOT NULL DEFAULT '',
      "extra" text NULL,
      "clientId" varchar(64) NOT NULL,
      "idempotencyKey" varchar(255) NULL,
      "created" datetime NOT NULL)`);
    // GET /Inventory/Transactions with modifiedSince; the ledger check per item.
    await q.query('CREATE INDEX "IX_ledger_created" ON "ledger_entry" ("created")');
    await q.query('CREATE INDEX "IX_ledger_partNo" ON "ledger_entry" ("partNo")');
    await q.query(`CREATE TABLE "stock_level" (
      "partNo" int NOT NULL,
      "wID" int NOT NULL,
      "inStock" decimal(18,4) NOT NULL DEFAULT 0,
      "onHold" decimal(18,4) NOT NULL DEFAULT 0,
      "modified" datetime NOT NULL,
      PRIMARY KEY ("partNo", "wID"),
      CONSTRAINT "FK_stock_level_item" FOREIGN KEY ("partNo") REFERENCES "item" ("partNo"),
      CONSTRAINT "FK_stock_level_warehouse" FOREIGN KEY ("wID") REFERENCES "warehouse" ("wID"))`);
    // GET /Inventory/StockLevels/<wid>, by partNo.
    await q.query('CREATE INDEX "IX_stock_level_wID" ON "stock_level" ("wID", "partNo")');
    await q.query(`CREATE TABLE "idempotency_record" (
      "clientId" varchar(64) NOT NULL,
      "keyHash" varchar(64) NOT NULL,
      "requestHash" varchar(64) NOT NULL,
      "state" varchar(16) NOT NULL,
      "status" int NULL,
      "body" text NULL,
      "created" datetime NOT NULL,
      PRIMARY KEY ("clientId", "keyHash"))`);
    // The purge of records older than 24 hours.
    await q.query('CREATE INDEX "IX_idempotency_created" ON "idempotency_record" ("created")');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE idempotency_record');
    await q.query('DROP TABLE stock_level');
    await q.query('DROP TABLE ledger_entry');
    await q.query('DROP TABLE lot');
  }
}
