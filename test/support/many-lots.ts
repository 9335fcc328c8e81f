import { addCounts } from '../../src/database/counters.js';
import type { TestApp } from '../app.factory.js';
import { givenStock } from './inventory.js';

/** The ten digits as a derived table; five of them cross-joined count 0 … 99,999 on both databases. */
const DIGITS = '(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)';
const LOT_COLUMNS = 'partNo, shortIdKey, wID, spot, units, received, shipped, serial, serial2, rFIDTag, remark, hold, jobID, jobName, associate, active, modified';

/**
 * `count` lots of `units` each of `itemID` in warehouse 1: one by Receive,
 * the rest copied from it by SQL with their receive ledger rows and the stock
 * level they add up to, as if each had been received (the ledger invariant
 * holds afterwards, and the list counters count them). Copies share the first
 * lot's received time, so they are taken in recNo order. Far quicker than
 * thousands of Receives, and it makes no events.
 */
export async function givenManyLots(t: TestApp, bearer: string, clientId: string, itemID: string, count: number, units: number): Promise<void> {
  const first = await givenStock(t, bearer, { itemID, units, spot: 'BULK' });
  const db = t.dataSource;
  await db.query(
    `INSERT INTO lot (${LOT_COLUMNS}) SELECT ${LOT_COLUMNS.split(', ').map((c) => `l.${c}`).join(', ')}
     FROM lot l, ${DIGITS} a, ${DIGITS} b, ${DIGITS} c, ${DIGITS} d, ${DIGITS} e
     WHERE l.recNo = ? AND a.d * 10000 + b.d * 1000 + c.d * 100 + d.d * 10 + e.d < ?`,
    [first, count - 1],
  );
  const [{ partNo }] = await db.query('SELECT partNo FROM lot WHERE recNo = ?', [first]);
  await db.query(
    `INSERT INTO ledger_entry (operationId, operation, partNo, recNo, toWid, toSpot, units, reasonCode, reference, remark, clientId, created)
     SELECT 'seeded-copies', 'receive', partNo, recNo, wID, spot, units, 1, '', '', ?, received FROM lot WHERE partNo = ? AND recNo <> ?`,
    [clientId, partNo, first],
  );
  await db.query('UPDATE stock_level SET inStock = (SELECT SUM(units) FROM lot WHERE lot.partNo = ? AND lot.wID = 1 AND lot.active = 1) WHERE partNo = ? AND wID = 1', [partNo, partNo]);
  await addCounts(db.manager, [{ list: 'lots', scope: '1', by: count - 1 }, { list: 'ledger', scope: '0>1', by: count - 1 }]);
}
