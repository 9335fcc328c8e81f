import type { MigrationInterface, QueryRunner } from 'typeorm';

/** See the MySQL migration of the same name: disabling a client moves its token generation on. */
export class TokenGeneration1763806500000 implements MigrationInterface {
  name = 'TokenGeneration1763806500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE "integration_client" ADD COLUMN "tokenGeneration" integer NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE "access_token" ADD COLUMN "generation" integer NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE "access_token" DROP COLUMN "generation"');
    await q.query('ALTER TABLE "integration_client" DROP COLUMN "tokenGeneration"');
  }
}
