import type { MigrationInterface, QueryRunner } from 'typeorm';
import { MYSQL_KEY_COLLATION as BIN } from '../../case-key.js';
import { ITEM_INDEXES } from '../item-indexes.js';

// Text columns compare bytes, as on SQLite, so that every sort order is the same on both.
const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

export class Catalog1763803000000 implements MigrationInterface {
  name = 'Catalog1763803000000';

  async up(q: QueryRunner): Promise<void> {
    const indexes = ITEM_INDEXES.map(
      (ix) => `${ix.unique ? 'UNIQUE ' : ''}KEY \`${ix.name}\` (${ix.columns.map((c) => `\`${c}\``).join(', ')})`,
    ).join(',\n      ');
    await q.query(`CREATE TABLE \`item\` (
      \`partNo\` int NOT NULL AUTO_INCREMENT,
      \`shortID\` varchar(64) NOT NULL,
      \`shortIdKey\` varchar(64) ${BIN} NOT NULL,
      \`description\` varchar(255) NOT NULL DEFAULT '',
      \`category\` int NOT NULL DEFAULT 0,
      \`subCategory\` int NOT NULL DEFAULT 0,
      \`uOM\` varchar(16) NOT NULL DEFAULT 'EA',
      \`putUp\` varchar(100) NOT NULL DEFAULT '',
      \`units\` decimal(18,4) NOT NULL DEFAULT 1,
      \`dfltOwner\` int NOT NULL DEFAULT 0,
      \`created\` datetime(3) NOT NULL,
      \`modified\` datetime(3) NOT NULL,
      \`discontinued\` tinyint(1) NOT NULL DEFAULT 0,
      \`createdBy\` varchar(64) NOT NULL,
      PRIMARY KEY (\`partNo\`),
      ${indexes}) ${TABLE}`);

    // UQ_item_alias_aliasKey: GET /Item?key=&type=alias; aliases unique regardless of case.
    await q.query(`CREATE TABLE \`item_alias\` (
      \`id\` int NOT NULL AUTO_INCREMENT,
      \`alias\` varchar(64) NOT NULL,
      \`aliasKey\` varchar(64) ${BIN} NOT NULL,
      \`partNo\` int NOT NULL,
      \`created\` datetime(3) NOT NULL,
      PRIMARY KEY (\`id\`),
      UNIQUE KEY \`UQ_item_alias_aliasKey\` (\`aliasKey\`),
      KEY \`IX_item_alias_partNo\` (\`partNo\`),
      CONSTRAINT \`FK_item_alias_item\` FOREIGN KEY (\`partNo\`) REFERENCES \`item\` (\`partNo\`)) ${TABLE}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE `item_alias`');
    await q.query('DROP TABLE `item`');
  }
}
