// Writes the checker must let through: the writer's own objects and data, and documented settings.
import type { ServerResponse } from 'node:http';
import type { Request } from 'express';
import { MigrationExecutor, type DataSource } from 'typeorm';
// The project's fields on Express's request (its `declare module 'express-serve-static-core'`).
import type { BearerAuthGuard } from '../../src/auth/guards.js';
import { Item } from '../../src/catalog/catalog.entities.js';

class Tally {
  count = 0;
  private readonly seen = new Map<string, number>();
  private readonly names: string[] = [];

  note(name: string): void {
    this.seen.set(name, (this.seen.get(name) ?? 0) + 1);
    this.names.push(name);
    this.names.sort();
    this.count++;
  }
}

interface Counter {
  count: number;
}

/** A helper that writes whatever it is given: called here with the project's objects only. */
function put(target: any, key: string, value: unknown): void {
  target[key] = value;
}

export type Guard = BearerAuthGuard;

export async function own(res: ServerResponse, dataSource: DataSource, rows: Array<Record<string, unknown>>, req: Request): Promise<Error> {
  const tally = new Tally();
  tally.count += 1;
  tally.note('a');
  const byName: Record<string, number> = {};
  byName.total = rows.length;
  rows[0] = { seen: true };
  for (const row of rows) row.seen = true;
  const map = new Map<string, number>();
  map.set('a', 1);
  const list: number[] = [];
  list.push(1);
  list.splice(0, 1);
  const set = new Set<string>();
  set.add('a');
  // A project object cast to an interface, to a record, through `any`: still the project's.
  const counter = tally as Counter;
  counter.count = 2;
  (tally as unknown as Record<string, unknown>).extra = 1;
  const loose: any = tally;
  loose.count = 3;
  [tally.count] = [4];
  ({ count: tally.count } = { count: 5 });
  put(tally, 'count', 6);
  put(byName, 'total', 0);
  // New objects the language makes for the caller.
  const parsed = JSON.parse('{}') as Record<string, unknown>;
  parsed.seen = true;
  const bare = Object.create(null) as Counter;
  bare.count = 0;
  const copy = [...dataSource.entityMetadatas];
  copy.pop();
  // The project's entities, loaded by TypeORM for the caller to change.
  const items = await dataSource.getRepository(Item).find();
  items.push(new Item());
  if (items[0]) items[0].description = 'renamed';
  // Documented settings, and the project's fields on Express's request.
  res.statusCode = 404;
  process.exitCode = 1;
  new MigrationExecutor(dataSource).transaction = 'each';
  req.authProblem = 'invalid';
  return Object.assign(new Error('refused'), { code: 'E_REFUSED' });
}
