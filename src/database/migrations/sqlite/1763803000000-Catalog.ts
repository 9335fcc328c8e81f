import type { MigrationInterface, QueryRunner } from 'typeorm';
import { ITEM_INDEXES } from '../item-indexes.js';

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
    for (const ix of ITEM_INDEXES) {
      await q.query(`CREATE ${ix.unique ? 'UNIQUE ' : ''}INDEX "${ix.name}" ON "item" (${ix.columns.map((c) => `"${c}"`).join(', ')})`);
    }

    await q.query(`CREATE TABLE "item_alias" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "alias" varchar(64) NOT NULL,
      "aliasKey" varchar(64) NOT NULL,
      "partNo" integer NOT NULL REFERENCES "item" ("partNo"),
      "created" datetime NOT NULL)`);
    // GET /Item?key=&type=alias; aliases unique regardless of case.
    await q.query(`CREATE UNIQUE INDEX "UQ_item_alias_aliasKey" ON "item_alias" ("aliasKey")`);
    await q.query(`CREATE INDEX "IX_item_alias_partNo" ON "item_alias" ("partNo")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "item_alias"`);
    await q.query(`DROP TABLE "item"`);
  }
}
