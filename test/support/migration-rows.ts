/**
 * Representative rows for a database part-way through its migrations: after
 * each migration, one more row in every table that exists by then, as the
 * service of that version could have written it (so that migrations which
 * rewrite or count rows meet real ones). The item of step 2 is a full-width
 * shortID with the key of that time (lower-cased NFC), which NfkcKeys refolds.
 */
type Rows = Array<[string, unknown[]]>;

const at = (step: number) => `2026-01-${String(step).padStart(2, '0')} 10:00:00.000`;

/** Each table group with the migration (by name, without its timestamp) that creates it. */
const GROUPS: Array<[string, (n: number) => Rows]> = [
  ['Auth', (n) => [
    ['INSERT INTO warehouse (wID, name, nameKey, created) VALUES (?, ?, ?, ?)', [n, `W${n}`, `w${n}`, at(n)]],
    ['INSERT INTO permission_group (id, name, nameKey, permissions, created) VALUES (?, ?, ?, ?, ?)', [n, `G${n}`, `g${n}`, '95,96', at(n)]],
    ['INSERT INTO integration_client (clientId, name, nameKey, groupId, secretHash, readOnly, disabled, created, modified) VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?)',
      [`c${n}`, `Client ${n}`, `client ${n}`, n, 'f'.repeat(64), at(n), at(n)]],
    ['INSERT INTO client_warehouse (clientId, wID) VALUES (?, ?)', [`c${n}`, n]],
    ['INSERT INTO access_token (tokenHash, clientId, issued, expires) VALUES (?, ?, ?, ?)', [String(n).padStart(64, 'a'), `c${n}`, at(n), at(n + 1)]],
  ]],
  ['Catalog', (n) => {
    const [shortID, key] = n === 2 ? ['ＡＢＣ-2', 'ａｂｃ-2'] : [`item-${n}`, `item-${n}`];
    return [
      ['INSERT INTO item (partNo, shortID, shortIdKey, description, created, modified, createdBy) VALUES (?, ?, ?, ?, ?, ?, ?)', [n, shortID, key, `Item ${n}`, at(n), at(n), `c${n}`]],
      ['INSERT INTO item_alias (alias, aliasKey, partNo, created) VALUES (?, ?, ?, ?)', [`ALIAS-${n}`, `alias-${n}`, n, at(n)]],
    ];
  }],
  ['Inventory', (n) => [
    ['INSERT INTO lot (partNo, wID, spot, units, received, modified) VALUES (?, ?, ?, ?, ?, ?)', [n, n, `A-${n}`, '12.5000', at(n), at(n)]],
    ['INSERT INTO ledger_entry (operationId, operation, partNo, recNo, toWid, toSpot, units, clientId, created) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?)',
      [`op-${n}`, 'receive', n, n, `A-${n}`, '12.5000', `c${n}`, at(n)]],
    ['INSERT INTO stock_level (partNo, wID, inStock, onHold, modified) VALUES (?, ?, ?, ?, ?)', [n, n, '12.5000', '0.5000', at(n)]],
    ['INSERT INTO idempotency_record (clientId, keyHash, requestHash, state, status, body, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [`c${n}`, `k${n}`, `r${n}`, 'done', 200, '{"ok":true}', at(n)]],
  ]],
  ['ListCounts', (n) => [['INSERT INTO stock_count (scope, items) VALUES (?, ?)', [1000 + n, 1]]]],
  ['ListCounters', (n) => [['INSERT INTO list_count (list, scope, slot, n) VALUES (?, ?, ?, ?)', ['lots', String(n), 1, 1]]]],
  ['Events', (n) => [
    ['INSERT INTO event (id, seq, unitId, pos, type, occurred, wid, toWid, data) VALUES (?, ?, ?, 0, ?, ?, ?, NULL, ?)',
      [`e-${n}`, n, `u-${n}`, 'stock.received', at(n), n, '{"partNo":1}']],
  ]],
  ['Webhooks', (n) => [
    ['INSERT INTO webhook_subscription (clientId, url, types, secret, createdSeq, afterSeq, created) VALUES (?, ?, ?, ?, 0, 0, ?)',
      [`c${n}`, 'https://example.test/hook', 'stock.received', 'whsec_x', at(n)]],
    ['INSERT INTO webhook_delivery (subscriptionId, eventId, seq, attempt, status, attemptedAt) VALUES (1, ?, ?, 1, 200, ?)', [`e-${n}`, n, at(n)]],
  ]],
  ['StockDocuments', (n) => [
    ['INSERT INTO allocation (partNo, wID, reference, units, packed, shipped, state, expiresAt, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [n, n, `SO-${n}`, '2.0000', '0.5000', '0.0000', 'open', at(n + 1), at(n), at(n)]],
    ['INSERT INTO expectation (partNo, wID, reference, units, received, stage, state, due, created, modified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [n, n, `PO-${n}`, '3.0000', '1.0000', 'ordered', 'open', null, at(n), at(n)]],
  ]],
];

/** The rows to add once the migrations named (oldest first) have run; `step` keeps each step's keys apart. */
export function rowsAfter(applied: string[], step: number): Rows {
  const names = applied.map((name) => name.replace(/\d+$/, ''));
  return GROUPS.filter(([creator]) => names.includes(creator)).flatMap(([, rows]) => rows(step));
}
