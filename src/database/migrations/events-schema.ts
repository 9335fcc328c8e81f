import type { Dialect } from './inventory-schema.js';

/**
 * The outbox of events (src/events): `event` gets its rows in the transaction
 * of the change they describe, with `seq` NULL; `event_sequence` holds the
 * last seq handed out, and its one row is the lock under which seqs are
 * assigned after commit (src/events/sequencer.ts). Each index names the query
 * it serves.
 */
export function eventsSchema(d: Dialect): string[] {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const id = d === 'mysql' ? 'bigint NOT NULL AUTO_INCREMENT PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
  const dt = d === 'mysql' ? 'datetime(3)' : 'datetime';
  const ascii = d === 'mysql' ? ' CHARACTER SET ascii COLLATE ascii_bin' : '';
  const table = d === 'mysql' ? ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : '';
  const ix = (name: string, t: string, cols: string[]) => `CREATE INDEX ${q(name)} ON ${q(t)} (${cols.map(q).join(', ')})`;
  return [
    `CREATE TABLE ${q('event')} (
      ${q('eventNo')} ${id},
      ${q('id')} varchar(36)${ascii} NOT NULL,
      ${q('seq')} bigint NULL,
      ${q('unitId')} varchar(36)${ascii} NOT NULL,
      ${q('pos')} int NOT NULL,
      ${q('type')} varchar(32)${ascii} NOT NULL,
      ${q('occurred')} ${dt} NOT NULL,
      ${q('wid')} int NULL,
      ${q('toWid')} int NULL,
      ${q('data')} ${d === 'mysql' ? 'mediumtext' : 'text'} NOT NULL)${table}`,
    // The feed (seq > after, in order); the sequencer's rows still without one (seq IS NULL, by eventNo); pruning (oldest seqs).
    // Not UNIQUE: seqs are unique by construction (one turn at a time), and InnoDB's duplicate check on a unique
    // index would take next-key locks that the writers' inserts (seq NULL) could meet.
    ix('IX_event_seq', 'event', ['seq']),
    // The claimer takes every row of a transaction it has seen (unitId), so that they get consecutive seqs.
    ix('IX_event_unitId', 'event', ['unitId']),
    `CREATE TABLE ${q('event_sequence')} (
      ${q('id')} int NOT NULL PRIMARY KEY,
      ${q('lastSeq')} bigint NOT NULL)${table}`,
    'INSERT INTO event_sequence (id, lastSeq) VALUES (1, 0)',
  ];
}

export function eventsSchemaDown(d: Dialect): string[] {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  return [`DROP TABLE ${q('event_sequence')}`, `DROP TABLE ${q('event')}`];
}
