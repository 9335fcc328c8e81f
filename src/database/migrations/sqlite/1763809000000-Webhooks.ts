import type { MigrationInterface, QueryRunner } from 'typeorm';
import { webhooksSchema, webhooksSchemaDown } from '../webhooks-schema.js';

/** Webhook subscriptions and their delivery attempts (see webhooks-schema.ts). */
export class Webhooks1763809000000 implements MigrationInterface {
  name = 'Webhooks1763809000000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of webhooksSchema('sqlite')) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of webhooksSchemaDown('sqlite')) await q.query(statement);
  }
}
