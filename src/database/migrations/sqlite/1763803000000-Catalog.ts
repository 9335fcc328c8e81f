import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Items and their aliases. Every secondary index of item also carries the primary key (InnoDB appends it;
 * SQLite stores the rowid), so ORDER BY <column>, partNo (the pagination tiebreak) walks the index without a sort.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class Catalog1763803000000 implements MigrationInterface {
  name = 'Catalog1763803000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "item" (
      "partNo" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "shortID" varchar(64) NOT NULL,
      "shortIdKey" varchar(64) NOT NULL,
      "description" varchar(255) NOT NULL DEFAULT '',
      "category" integer NOT NULL DEFAULT 0,
      "subCategory" integer NOT NULL DEFAULT 0,
      "uOM" varchar(16) NOT NULL DEFAULT 'EA',
      "putUp" varchar(100) NOT NULL DEFAULT '',
      "units" decimal(18,4) NOT NULL DEFAULT 1,
      "dfltOwner" integer NOT NULL DEFAULT 0,
      "created" datetime NOT NULL,
      "modified" datetime NOT NULL,
      "discontinued" boolean NOT NULL DEFAULT 0,
      "createdBy" varchar(64) NOT NULL)`);
    // GET /Item?key=&type=id, PUT /Item, DELETE /Item/<shortID>, duplicate check; /Item/All ordered by shortID.
    await q.query('CREATE UNIQUE INDEX "UQ_item_shortIdKey" ON "item" ("shortIdKey")');
    // GET /Item (not discontinued) ordered by shortID, the default.
    await q.query('CREATE INDEX "IX_item_active_shortIdKey" ON "item" ("discontinued", "shortIdKey")');
    // GET /Item sort=description.
    await q.query('CREATE INDEX "IX_item_active_description" ON "item" ("discontinued", "description")');
    // GET /Item sort=category.
    await q.query('CREATE INDEX "IX_item_active_category" ON "item" ("discontinued", "category")');
    // GET /Item sort=subCategory.
    await q.query('CREATE INDEX "IX_item_active_subCategory" ON "item" ("discontinued", "subCategory")');
    // GET /Item sort=created.
    await q.query('CREATE INDEX "IX_item_active_created" ON "item" ("discontinued", "created")');
    // GET /Item sort=modified, and modifiedSince on it.
    await q.query('CREATE INDEX "IX_item_active_modified" ON "item" ("discontinued", "modified")');
    // GET /Item/All sort=description.
    await q.query('CREATE INDEX "IX_item_description" ON "item" ("description")');
    // GET /Item?Category= (flat, by shortID).
    await q.query('CREATE INDEX "IX_item_category_active_shortIdKey" ON "item" ("category", "discontinued", "shortIdKey")');
    // GET /Item/All sort=subCategory.
    await q.query('CREATE INDEX "IX_item_subCategory" ON "item" ("subCategory")');
    // GET /Item/All sort=created.
    await q.query('CREATE INDEX "IX_item_created" ON "item" ("created")');
    // GET /Item/All sort=modified, and modifiedSince on it.
    await q.query('CREATE INDEX "IX_item_modified" ON "item" ("modified")');
    await q.query(`CREATE TABLE "item_alias" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "alias" varchar(64) NOT NULL,
      "aliasKey" varchar(64) NOT NULL,
      "partNo" integer NOT NULL REFERENCES "item" ("partNo"),
      "created" datetime NOT NULL)`);
    // GET /Item?key=&type=alias; aliases unique regardless of case.
    await q.query('CREATE UNIQUE INDEX "UQ_item_alias_aliasKey" ON "item_alias" ("aliasKey")');
    await q.query('CREATE INDEX "IX_item_alias_partNo" ON "item_alias" ("partNo")');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "item_alias"');
    await q.query('DROP TABLE "item"');
  }
}
