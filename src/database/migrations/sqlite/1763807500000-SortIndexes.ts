import type { MigrationInterface, QueryRunner } from 'typeorm';
import { sortIndexesDown, sortIndexesUp } from '../sort-indexes.js';

/** An index for every allowed order of every list, lots' shortID key and the stored available (see sort-indexes.ts). */
export class SortIndexes1763807500000 implements MigrationInterface {
  name = 'SortIndexes1763807500000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of sortIndexesUp('sqlite')) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of sortIndexesDown('sqlite')) await q.query(statement);
  }
}
