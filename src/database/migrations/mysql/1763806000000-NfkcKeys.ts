import type { MigrationInterface, QueryRunner } from 'typeorm';
import { keyFoldDown, keyFoldUp } from '../key-fold.js';

/** Case keys become NFKC case folds (DECISIONS "Items"); see key-fold.ts for rows that would collide. */
export class NfkcKeys1763806000000 implements MigrationInterface {
  name = 'NfkcKeys1763806000000';

  async up(q: QueryRunner): Promise<void> {
    await keyFoldUp(q, 'mysql', this.name);
  }

  async down(q: QueryRunner): Promise<void> {
    await keyFoldDown(q, 'mysql', this.name);
  }
}
