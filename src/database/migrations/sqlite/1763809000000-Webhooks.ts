import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook subscriptions (each with its own position in the feed, retry state and delivery lease) and their
 * delivery attempts.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class Webhooks1763809000000 implements MigrationInterface {
  name = 'Webhooks1763809000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "webhook_subscription" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "clientId" varchar(64) NOT NULL,
      "url" varchar(2048) NOT NULL,
      "types" varchar(1000) NULL,
      "secret" varchar(100) NOT NULL,
      "createdSeq" bigint NOT NULL,
      "afterSeq" bigint NOT NULL,
      "attempt" int NOT NULL DEFAULT 0,
      "nextTry" datetime NULL,
      "leaseOwner" varchar(36) NULL,
      "leaseUntil" datetime NULL,
      "created" datetime NOT NULL)`);
    // webhook:list --client-id.
    await q.query('CREATE INDEX "IX_webhook_subscription_clientId" ON "webhook_subscription" ("clientId")');
    // The relay's look for work (subscriptions behind the feed) and the lag gauge (MIN); then due, free or lapsed
    // leases.
    await q.query('CREATE INDEX "IX_webhook_subscription_afterSeq" ON "webhook_subscription" ("afterSeq")');
    await q.query('CREATE INDEX "IX_webhook_subscription_lease" ON "webhook_subscription" ("leaseUntil", "nextTry")');
    await q.query(`CREATE TABLE "webhook_delivery" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "subscriptionId" int NOT NULL,
      "eventId" varchar(36) NOT NULL,
      "seq" bigint NOT NULL,
      "attempt" int NOT NULL,
      "status" int NULL,
      "error" varchar(200) NULL,
      "attemptedAt" datetime NOT NULL,
      "nextTry" datetime NULL)`);
    // webhook:deliveries (newest first) and webhook:delete.
    await q.query('CREATE INDEX "IX_webhook_delivery_subscription" ON "webhook_delivery" ("subscriptionId", "id")');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "webhook_delivery"');
    await q.query('DROP TABLE "webhook_subscription"');
  }
}
