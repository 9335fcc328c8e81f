import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The list counters of allocations and expectations in `list_count` (src/inventory/list-counts.ts): per warehouse
 * ("<wID>"), every state, kept by the transaction that inserts a document; filled here from the documents already
 * there, into slot 0. No schema change.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class DocumentCounters1763811000000 implements MigrationInterface {
  name = 'DocumentCounters1763811000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query("DELETE FROM list_count WHERE list IN ('allocations', 'expectations')");
    await q.query("INSERT INTO list_count (list, scope, slot, n) SELECT 'allocations', CAST(wID AS TEXT), 0, COUNT(*) FROM allocation GROUP BY wID");
    await q.query("INSERT INTO list_count (list, scope, slot, n) SELECT 'expectations', CAST(wID AS TEXT), 0, COUNT(*) FROM expectation GROUP BY wID");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query("DELETE FROM list_count WHERE list IN ('allocations', 'expectations')");
  }
}
