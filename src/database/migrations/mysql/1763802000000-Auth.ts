import type { MigrationInterface, QueryRunner } from 'typeorm';
import { MYSQL_KEY_COLLATION as BIN } from '../../case-key.js';

const TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';

export class Auth1763802000000 implements MigrationInterface {
  name = 'Auth1763802000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE \`warehouse\` (
      \`wID\` int NOT NULL,
      \`name\` varchar(100) NOT NULL,
      \`nameKey\` varchar(100) ${BIN} NOT NULL,
      \`created\` datetime(3) NOT NULL,
      PRIMARY KEY (\`wID\`),
      UNIQUE KEY \`UQ_warehouse_nameKey\` (\`nameKey\`)) ${TABLE}`);

    await q.query(`CREATE TABLE \`permission_group\` (
      \`id\` int NOT NULL AUTO_INCREMENT,
      \`name\` varchar(64) NOT NULL,
      \`nameKey\` varchar(64) ${BIN} NOT NULL,
      \`permissions\` varchar(255) NOT NULL,
      \`created\` datetime(3) NOT NULL,
      PRIMARY KEY (\`id\`),
      UNIQUE KEY \`UQ_permission_group_nameKey\` (\`nameKey\`)) ${TABLE}`);

    await q.query(`CREATE TABLE \`integration_client\` (
      \`clientId\` varchar(64) ${BIN} NOT NULL,
      \`name\` varchar(64) NOT NULL,
      \`nameKey\` varchar(64) ${BIN} NOT NULL,
      \`groupId\` int NOT NULL,
      \`secretHash\` char(64) ${BIN} NOT NULL,
      \`secretRotated\` datetime(3) NULL,
      \`readOnly\` tinyint(1) NOT NULL DEFAULT 0,
      \`disabled\` tinyint(1) NOT NULL DEFAULT 0,
      \`created\` datetime(3) NOT NULL,
      \`modified\` datetime(3) NOT NULL,
      PRIMARY KEY (\`clientId\`),
      UNIQUE KEY \`UQ_integration_client_nameKey\` (\`nameKey\`),
      KEY \`IX_integration_client_groupId\` (\`groupId\`),
      CONSTRAINT \`FK_integration_client_group\` FOREIGN KEY (\`groupId\`) REFERENCES \`permission_group\` (\`id\`)) ${TABLE}`);

    await q.query(`CREATE TABLE \`client_warehouse\` (
      \`clientId\` varchar(64) ${BIN} NOT NULL,
      \`wID\` int NOT NULL,
      PRIMARY KEY (\`clientId\`, \`wID\`),
      KEY \`IX_client_warehouse_wID\` (\`wID\`),
      CONSTRAINT \`FK_client_warehouse_client\` FOREIGN KEY (\`clientId\`) REFERENCES \`integration_client\` (\`clientId\`) ON DELETE CASCADE,
      CONSTRAINT \`FK_client_warehouse_warehouse\` FOREIGN KEY (\`wID\`) REFERENCES \`warehouse\` (\`wID\`)) ${TABLE}`);

    // The purge of a client's expired tokens, when it gets a new one, walks (clientId, expires).
    await q.query(`CREATE TABLE \`access_token\` (
      \`tokenHash\` char(64) ${BIN} NOT NULL,
      \`clientId\` varchar(64) ${BIN} NOT NULL,
      \`issued\` datetime(3) NOT NULL,
      \`expires\` datetime(3) NOT NULL,
      PRIMARY KEY (\`tokenHash\`),
      KEY \`IX_access_token_client_expires\` (\`clientId\`, \`expires\`),
      CONSTRAINT \`FK_access_token_client\` FOREIGN KEY (\`clientId\`) REFERENCES \`integration_client\` (\`clientId\`) ON DELETE CASCADE) ${TABLE}`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['access_token', 'client_warehouse', 'integration_client', 'permission_group', 'warehouse']) {
      await q.query(`DROP TABLE \`${table}\``);
    }
  }
}
