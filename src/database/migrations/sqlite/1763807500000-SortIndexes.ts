import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An index for every order a list allows: scope filter, sort column, then the primary key (the tiebreak), so
 * that a page is a walk of one index range with no sort; a list over several warehouses walks (column, key, wID).
 * lot.shortIdKey is the item's key copied into its lots (a shortID never changes); stock_level.available
 * (inStock - onHold) is a generated column, so that stock levels sort by it on an index.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class SortIndexes1763807500000 implements MigrationInterface {
  name = 'SortIndexes1763807500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "lot" ADD COLUMN "shortIdKey" varchar(64) NOT NULL DEFAULT ''`);
    await q.query('UPDATE "lot" SET "shortIdKey" = (SELECT "shortIdKey" FROM "item" WHERE "item"."partNo" = "lot"."partNo")');
    // SQLite adds only VIRTUAL generated columns to an existing table; an index on one is stored all the same.
    await q.query('ALTER TABLE "stock_level" ADD COLUMN "available" decimal(19,4) GENERATED ALWAYS AS ("inStock" - "onHold") VIRTUAL');
    // GET /Item sort=partNo; GET /Item/All sort=category; GET /Inventory/<wid> sort=recNo; then per lot order
    // (IX_lot_<column>_recNo_wID: GET /Inventory, IX_lot_wID_<column>_recNo: GET /Inventory/<wid>).
    await q.query('CREATE INDEX "IX_item_active_partNo" ON "item" ("discontinued", "partNo")');
    await q.query('CREATE INDEX "IX_item_category_partNo" ON "item" ("category", "partNo")');
    await q.query('CREATE INDEX "IX_lot_wID_recNo" ON "lot" ("wID", "recNo")');
    await q.query('CREATE INDEX "IX_lot_shortIdKey_recNo_wID" ON "lot" ("shortIdKey", "recNo", "wID")');
    await q.query('CREATE INDEX "IX_lot_wID_shortIdKey_recNo" ON "lot" ("wID", "shortIdKey", "recNo")');
    await q.query('CREATE INDEX "IX_lot_partNo_recNo_wID" ON "lot" ("partNo", "recNo", "wID")');
    await q.query('CREATE INDEX "IX_lot_wID_partNo_recNo" ON "lot" ("wID", "partNo", "recNo")');
    await q.query('CREATE INDEX "IX_lot_spot_recNo_wID" ON "lot" ("spot", "recNo", "wID")');
    await q.query('CREATE INDEX "IX_lot_wID_spot_recNo" ON "lot" ("wID", "spot", "recNo")');
    await q.query('CREATE INDEX "IX_lot_units_recNo_wID" ON "lot" ("units", "recNo", "wID")');
    await q.query('CREATE INDEX "IX_lot_wID_units_recNo" ON "lot" ("wID", "units", "recNo")');
    await q.query('CREATE INDEX "IX_lot_modified_recNo_wID" ON "lot" ("modified", "recNo", "wID")');
    await q.query('CREATE INDEX "IX_lot_wID_modified_recNo" ON "lot" ("wID", "modified", "recNo")');
    // GET /Inventory/Transactions sort=created and modifiedSince; sort=partNo, itemID and the ledger check per item.
    await q.query('CREATE INDEX "IX_ledger_created_id_wids" ON "ledger_entry" ("created", "id", "fromWid", "toWid")');
    await q.query('CREATE INDEX "IX_ledger_partNo_id_wids" ON "ledger_entry" ("partNo", "id", "fromWid", "toWid")');
    // GET /Inventory/StockLevels/<wid> sort=inStock, onHold, available.
    await q.query('CREATE INDEX "IX_stock_level_wID_inStock" ON "stock_level" ("wID", "inStock", "partNo")');
    await q.query('CREATE INDEX "IX_stock_level_wID_onHold" ON "stock_level" ("wID", "onHold", "partNo")');
    await q.query('CREATE INDEX "IX_stock_level_wID_available" ON "stock_level" ("wID", "available", "partNo")');
    // The indexes replaced above: the same leading column, without the tiebreak and scope.
    await q.query('DROP INDEX "IX_lot_modified"');
    await q.query('DROP INDEX "IX_ledger_created"');
    await q.query('DROP INDEX "IX_ledger_partNo"');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX "IX_lot_modified" ON "lot" ("modified")');
    await q.query('CREATE INDEX "IX_ledger_created" ON "ledger_entry" ("created")');
    await q.query('CREATE INDEX "IX_ledger_partNo" ON "ledger_entry" ("partNo")');
    await q.query('DROP INDEX "IX_item_active_partNo"');
    await q.query('DROP INDEX "IX_item_category_partNo"');
    await q.query('DROP INDEX "IX_lot_wID_recNo"');
    await q.query('DROP INDEX "IX_lot_shortIdKey_recNo_wID"');
    await q.query('DROP INDEX "IX_lot_wID_shortIdKey_recNo"');
    await q.query('DROP INDEX "IX_lot_partNo_recNo_wID"');
    await q.query('DROP INDEX "IX_lot_wID_partNo_recNo"');
    await q.query('DROP INDEX "IX_lot_spot_recNo_wID"');
    await q.query('DROP INDEX "IX_lot_wID_spot_recNo"');
    await q.query('DROP INDEX "IX_lot_units_recNo_wID"');
    await q.query('DROP INDEX "IX_lot_wID_units_recNo"');
    await q.query('DROP INDEX "IX_lot_modified_recNo_wID"');
    await q.query('DROP INDEX "IX_lot_wID_modified_recNo"');
    await q.query('DROP INDEX "IX_ledger_created_id_wids"');
    await q.query('DROP INDEX "IX_ledger_partNo_id_wids"');
    await q.query('DROP INDEX "IX_stock_level_wID_inStock"');
    await q.query('DROP INDEX "IX_stock_level_wID_onHold"');
    await q.query('DROP INDEX "IX_stock_level_wID_available"');
    await q.query('ALTER TABLE "stock_level" DROP COLUMN "available"');
    await q.query('ALTER TABLE "lot" DROP COLUMN "shortIdKey"');
  }
}
