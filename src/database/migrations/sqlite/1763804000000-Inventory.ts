import type { MigrationInterface, QueryRunner } from 'typeorm';
import { INVENTORY_TABLES, inventorySchema } from '../inventory-schema.js';

export class Inventory1763804000000 implements MigrationInterface {
  name = 'Inventory1763804000000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of inventorySchema('sqlite')) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of INVENTORY_TABLES) await q.query(`DROP TABLE ${table}`);
  }
}
