import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Auth1763802000000 implements MigrationInterface {
  name = 'Auth1763802000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "warehouse" (
      "wID" integer PRIMARY KEY NOT NULL,
      "name" varchar(100) NOT NULL,
      "nameKey" varchar(100) NOT NULL,
      "created" datetime NOT NULL)`);
    await q.query(`CREATE UNIQUE INDEX "UQ_warehouse_nameKey" ON "warehouse" ("nameKey")`);

    await q.query(`CREATE TABLE "permission_group" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "name" varchar(64) NOT NULL,
      "nameKey" varchar(64) NOT NULL,
      "permissions" varchar(255) NOT NULL,
      "created" datetime NOT NULL)`);
    await q.query(`CREATE UNIQUE INDEX "UQ_permission_group_nameKey" ON "permission_group" ("nameKey")`);

    await q.query(`CREATE TABLE "integration_client" (
      "clientId" varchar(64) PRIMARY KEY NOT NULL,
      "name" varchar(64) NOT NULL,
      "nameKey" varchar(64) NOT NULL,
      "groupId" integer NOT NULL REFERENCES "permission_group" ("id"),
      "secretHash" char(64) NOT NULL,
      "secretRotated" datetime,
      "readOnly" boolean NOT NULL DEFAULT 0,
      "disabled" boolean NOT NULL DEFAULT 0,
      "created" datetime NOT NULL,
      "modified" datetime NOT NULL)`);
    await q.query(`CREATE UNIQUE INDEX "UQ_integration_client_nameKey" ON "integration_client" ("nameKey")`);
    await q.query(`CREATE INDEX "IX_integration_client_groupId" ON "integration_client" ("groupId")`);

    await q.query(`CREATE TABLE "client_warehouse" (
      "clientId" varchar(64) NOT NULL REFERENCES "integration_client" ("clientId") ON DELETE CASCADE,
      "wID" integer NOT NULL REFERENCES "warehouse" ("wID"),
      PRIMARY KEY ("clientId", "wID"))`);

    await q.query(`CREATE TABLE "access_token" (
      "tokenHash" char(64) PRIMARY KEY NOT NULL,
      "clientId" varchar(64) NOT NULL REFERENCES "integration_client" ("clientId") ON DELETE CASCADE,
      "issued" datetime NOT NULL,
      "expires" datetime NOT NULL)`);
    // Serves the purge of a client's expired tokens when it gets a new one.
    await q.query(`CREATE INDEX "IX_access_token_client_expires" ON "access_token" ("clientId", "expires")`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['access_token', 'client_warehouse', 'integration_client', 'permission_group', 'warehouse']) {
      await q.query(`DROP TABLE "${table}"`);
    }
  }
}
