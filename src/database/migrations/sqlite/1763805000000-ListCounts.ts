import type { MigrationInterface, QueryRunner } from 'typeorm';
import { listCountsDown, listCountsUp } from '../list-counts.js';

export class ListCounts1763805000000 implements MigrationInterface {
  name = 'ListCounts1763805000000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of listCountsUp('sqlite')) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of listCountsDown('sqlite')) await q.query(statement);
  }
}
