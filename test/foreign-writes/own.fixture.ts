// Writes the checker must let through: the writer's own objects and data, and documented settings.
import type { ServerResponse } from 'node:http';
import { MigrationExecutor, type DataSource } from 'typeorm';

class Tally {
  count = 0;
}

export function own(res: ServerResponse, dataSource: DataSource, rows: Array<Record<string, unknown>>): Error {
  const tally = new Tally();
  tally.count += 1;
  const byName: Record<string, number> = {};
  byName.total = rows.length;
  rows[0] = { seen: true };
  const map = new Map<string, number>();
  map.set('a', 1);
  res.statusCode = 404;
  process.exitCode = 1;
  new MigrationExecutor(dataSource).transaction = 'each';
  return Object.assign(new Error('refused'), { code: 'E_REFUSED' });
}
