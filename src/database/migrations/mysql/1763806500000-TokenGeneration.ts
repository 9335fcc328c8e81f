import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Disabling a client revokes its tokens for good (DECISIONS "Authentication"):
 * each token carries the client's token generation at issue, and disabling
 * the client moves its generation on, so enabling it again revives nothing.
 */
export class TokenGeneration1763806500000 implements MigrationInterface {
  name = 'TokenGeneration1763806500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE `integration_client` ADD COLUMN `tokenGeneration` int NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE `access_token` ADD COLUMN `generation` int NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE `access_token` DROP COLUMN `generation`');
    await q.query('ALTER TABLE `integration_client` DROP COLUMN `tokenGeneration`');
  }
}
