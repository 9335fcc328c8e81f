import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A stored Idempotency-Key response holds the whole answer, and an Issue or
 * Move over thousands of lots answers with every lot: TEXT (64 KiB) is too
 * small for that on MySQL/MariaDB, MEDIUMTEXT holds 16 MiB. (SQLite's TEXT
 * has no such limit, so it has no counterpart of this migration.)
 */
export class LargeResponses1763806300000 implements MigrationInterface {
  name = 'LargeResponses1763806300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE `idempotency_record` MODIFY `body` mediumtext NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE `idempotency_record` MODIFY `body` text NULL');
  }
}
