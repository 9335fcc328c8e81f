import type { MigrationInterface, QueryRunner } from 'typeorm';
import { listCountersDown, listCountersUp } from '../list-counters.js';

/** Exact list totals kept by the writes (see list-counters.ts), filled from the rows already there. */
export class ListCounters1763807000000 implements MigrationInterface {
  name = 'ListCounters1763807000000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of listCountersUp('mysql')) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of listCountersDown('mysql')) await q.query(statement);
  }
}
