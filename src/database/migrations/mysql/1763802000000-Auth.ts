import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Warehouses, permission groups, integration clients, their warehouses and access tokens.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class Auth1763802000000 implements MigrationInterface {
  name = 'Auth1763802000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE \`warehouse\` (
      \`wID\` int NOT NULL,
      \`name\` varchar(100) NOT NULL,
      \`nameKey\` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      \`created\` datetime(3) NOT NULL,
      PRIMARY KEY (\`wID\`),
      UNIQUE KEY \`UQ_warehouse_nameKey\` (\`nameKey\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE \`permission_group\` (
      \`id\` int NOT NULL AUTO_INCREMENT,
      \`name\` varchar(64) NOT NULL,
      \`nameKey\` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      \`permissions\` varchar(255) NOT NULL,
      \`created\` datetime(3) NOT NULL,
      PRIMARY KEY (\`id\`),
      UNIQUE KEY \`UQ_permission_group_nameKey\` (\`nameKey\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE \`integration_client\` (
      \`clientId\` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      \`name\` varchar(64) NOT NULL,
      \`nameKey\` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      \`groupId\` int NOT NULL,
      \`secretHash\` char(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      \`secretRotated\` datetime(3) NULL,
      \`readOnly\` tinyint(1) NOT NULL DEFAULT 0,
      \`disabled\` tinyint(1) NOT NULL DEFAULT 0,
      \`created\` datetime(3) NOT NULL,
      \`modified\` datetime(3) NOT NULL,
      PRIMARY KEY (\`clientId\`),
      UNIQUE KEY \`UQ_integration_client_nameKey\` (\`nameKey\`),
      KEY \`IX_integration_client_groupId\` (\`groupId\`),
      CONSTRAINT \`FK_integration_client_group\` FOREIGN KEY (\`groupId\`) REFERENCES \`permission_group\` (\`id\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE \`client_warehouse\` (
      \`clientId\` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      \`wID\` int NOT NULL,
      PRIMARY KEY (\`clientId\`, \`wID\`),
      KEY \`IX_client_warehouse_wID\` (\`wID\`),
      CONSTRAINT \`FK_client_warehouse_client\` FOREIGN KEY (\`clientId\`) REFERENCES \`integration_client\` (\`clientId\`) ON DELETE CASCADE,
      CONSTRAINT \`FK_client_warehouse_warehouse\` FOREIGN KEY (\`wID\`) REFERENCES \`warehouse\` (\`wID\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE \`access_token\` (
      \`tokenHash\` char(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      \`clientId\` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      \`issued\` datetime(3) NOT NULL,
      \`expires\` datetime(3) NOT NULL,
      PRIMARY KEY (\`tokenHash\`),
      KEY \`IX_access_token_client_expires\` (\`clientId\`, \`expires\`),
      CONSTRAINT \`FK_access_token_client\` FOREIGN KEY (\`clientId\`) REFERENCES \`integration_client\` (\`clientId\`) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE `access_token`');
    await q.query('DROP TABLE `client_warehouse`');
    await q.query('DROP TABLE `integration_client`');
    await q.query('DROP TABLE `permission_group`');
    await q.query('DROP TABLE `warehouse`');
  }
}
