import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Items and their aliases. Every secondary index of item also carries the primary key (InnoDB appends it;
 * SQLite stores the rowid), so ORDER BY <column>, partNo (the pagination tiebreak) walks the index without a sort.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class Catalog1763803000000 implements MigrationInterface {
  name = 'Catalog1763803000000';

  async up(q: QueryRunner): Promise<void> {
    // The query each item index serves: see the SQLite migration of the same name.
    await q.query(`CREATE TABLE \`item\` (
      \`partNo\` int NOT NULL AUTO_INCREMENT,
      \`shortID\` varchar(64) NOT NULL,
      \`shortIdKey\` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
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
      UNIQUE KEY \`UQ_item_shortIdKey\` (\`shortIdKey\`),
      KEY \`IX_item_active_shortIdKey\` (\`discontinued\`, \`shortIdKey\`),
      KEY \`IX_item_active_description\` (\`discontinued\`, \`description\`),
      KEY \`IX_item_active_category\` (\`discontinued\`, \`category\`),
      KEY \`IX_item_active_subCategory\` (\`discontinued\`, \`subCategory\`),
      KEY \`IX_item_active_created\` (\`discontinued\`, \`created\`),
      KEY \`IX_item_active_modified\` (\`discontinued\`, \`modified\`),
      KEY \`IX_item_description\` (\`description\`),
      KEY \`IX_item_category_active_shortIdKey\` (\`category\`, \`discontinued\`, \`shortIdKey\`),
      KEY \`IX_item_subCategory\` (\`subCategory\`),
      KEY \`IX_item_created\` (\`created\`),
      KEY \`IX_item_modified\` (\`modified\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await q.query(`CREATE TABLE \`item_alias\` (
      \`id\` int NOT NULL AUTO_INCREMENT,
      \`alias\` varchar(64) NOT NULL,
      \`aliasKey\` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      \`partNo\` int NOT NULL,
      \`created\` datetime(3) NOT NULL,
      PRIMARY KEY (\`id\`),
      UNIQUE KEY \`UQ_item_alias_aliasKey\` (\`aliasKey\`),
      KEY \`IX_item_alias_partNo\` (\`partNo\`),
      CONSTRAINT \`FK_item_alias_item\` FOREIGN KEY (\`partNo\`) REFERENCES \`item\` (\`partNo\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE `item_alias`');
    await q.query('DROP TABLE `item`');
  }
}
