import type { MigrationInterface, QueryRunner } from 'typeorm';
import { eventsSchema, eventsSchemaDown } from '../events-schema.js';

/** The outbox of events and the sequence their feed order comes from (see events-schema.ts). */
export class Events1763808000000 implements MigrationInterface {
  name = 'Events1763808000000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of eventsSchema('sqlite')) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of eventsSchemaDown('sqlite')) await q.query(statement);
  }
}
