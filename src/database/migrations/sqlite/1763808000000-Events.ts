import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox of events (src/events): `event` gets its rows in the transaction of the change they describe,
 * with seq NULL; `event_sequence` holds the last seq handed out, and its one row is the lock under which seqs
 * are assigned after commit.
 * Frozen: its statements are history; a change is a new migration (docs/architecture.md, "Migrations").
 */
export class Events1763808000000 implements MigrationInterface {
  name = 'Events1763808000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "event" (
      "eventNo" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "id" varchar(36) NOT NULL,
      "seq" bigint NULL,
      "unitId" varchar(36) NOT NULL,
      "pos" int NOT NULL,
      "type" varchar(32) NOT NULL,
      "occurred" datetime NOT NULL,
      "wid" int NULL,
      "toWid" int NULL,
      "data" text NOT NULL)`);
    // The feed (seq > after, in order), the sequencer's rows still without one, pruning. Not UNIQUE: seqs are unique by
    // construction, and InnoDB's duplicate check would take next-key locks that the writers' inserts (seq NULL) could
    // meet.
    await q.query('CREATE INDEX "IX_event_seq" ON "event" ("seq")');
    // The claimer takes every row of a transaction it has seen, so that they get consecutive seqs.
    await q.query('CREATE INDEX "IX_event_unitId" ON "event" ("unitId")');
    await q.query(`CREATE TABLE "event_sequence" (
      "id" int NOT NULL PRIMARY KEY,
      "lastSeq" bigint NOT NULL)`);
    await q.query('INSERT INTO event_sequence (id, lastSeq) VALUES (1, 0)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "event_sequence"');
    await q.query('DROP TABLE "event"');
  }
}
