import type { Dialect } from './inventory-schema.js';

/**
 * Webhook subscriptions and their delivery attempts (src/events/webhooks*.ts).
 * A subscription carries its own position in the feed (`afterSeq`: every
 * event up to it has been delivered, failed for good or was not for it), the
 * retry state of the event after it (`attempt`, `nextTry`), and the lease of
 * the instance delivering it (`leaseOwner` until `leaseUntil`). Each index
 * names the query it serves.
 */
export function webhooksSchema(d: Dialect): string[] {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const id = d === 'mysql' ? 'int NOT NULL AUTO_INCREMENT PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
  const bigId = d === 'mysql' ? 'bigint NOT NULL AUTO_INCREMENT PRIMARY KEY' : 'integer PRIMARY KEY AUTOINCREMENT NOT NULL';
  const dt = d === 'mysql' ? 'datetime(3)' : 'datetime';
  const ascii = d === 'mysql' ? ' CHARACTER SET ascii COLLATE ascii_bin' : '';
  const table = d === 'mysql' ? ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : '';
  const ix = (name: string, t: string, cols: string[]) => `CREATE INDEX ${q(name)} ON ${q(t)} (${cols.map(q).join(', ')})`;
  return [
    `CREATE TABLE ${q('webhook_subscription')} (
      ${q('id')} ${id},
      ${q('clientId')} varchar(64) NOT NULL,
      ${q('url')} varchar(2048) NOT NULL,
      ${q('types')} varchar(1000) NULL,
      ${q('secret')} varchar(100)${ascii} NOT NULL,
      ${q('createdSeq')} bigint NOT NULL,
      ${q('afterSeq')} bigint NOT NULL,
      ${q('attempt')} int NOT NULL DEFAULT 0,
      ${q('nextTry')} ${dt} NULL,
      ${q('leaseOwner')} varchar(36)${ascii} NULL,
      ${q('leaseUntil')} ${dt} NULL,
      ${q('created')} ${dt} NOT NULL)${table}`,
    // webhook:list --client-id.
    ix('IX_webhook_subscription_clientId', 'webhook_subscription', ['clientId']),
    // The relay's look for work: subscriptions behind the feed (afterSeq < lastSeq: few, most are caught up),
    // or, when many are behind, those whose lease is free or lapsed and whose next try is due. afterSeq also
    // gives the lag gauge the subscription furthest behind (MIN).
    ix('IX_webhook_subscription_afterSeq', 'webhook_subscription', ['afterSeq']),
    ix('IX_webhook_subscription_lease', 'webhook_subscription', ['leaseUntil', 'nextTry']),
    `CREATE TABLE ${q('webhook_delivery')} (
      ${q('id')} ${bigId},
      ${q('subscriptionId')} int NOT NULL,
      ${q('eventId')} varchar(36)${ascii} NOT NULL,
      ${q('seq')} bigint NOT NULL,
      ${q('attempt')} int NOT NULL,
      ${q('status')} int NULL,
      ${q('error')} varchar(200) NULL,
      ${q('attemptedAt')} ${dt} NOT NULL,
      ${q('nextTry')} ${dt} NULL)${table}`,
    // webhook:deliveries (newest first) and webhook:delete (every attempt of the subscription).
    ix('IX_webhook_delivery_subscription', 'webhook_delivery', ['subscriptionId', 'id']),
  ];
}

export function webhooksSchemaDown(d: Dialect): string[] {
  const q = (name: string) => (d === 'mysql' ? `\`${name}\`` : `"${name}"`);
  return [`DROP TABLE ${q('webhook_delivery')}`, `DROP TABLE ${q('webhook_subscription')}`];
}
