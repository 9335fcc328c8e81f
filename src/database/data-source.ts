import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseTarget } from '../config/config.js';
import { MYSQL_MIGRATIONS } from './migrations/mysql/index.js';
import { SQLITE_MIGRATIONS } from './migrations/sqlite/index.js';
import { mysqlDriver } from './session.js';

/**
 * One data source description for both dialects, used by the service, the
 * migration runner, ormconfig.ts and the tests. Schema changes only ever come
 * from the migrations of the dialect (never `synchronize`). The entities are
 * the caller's: the service's modules register their own (`forFeature`, with
 * `autoLoadEntities`), so this layer knows no feature; ormconfig.ts passes
 * the whole list (`src/entities.ts`); migrations and raw queries need none.
 */
export function dataSourceOptions(db: DatabaseTarget, entities: DataSourceOptions['entities'] = []): DataSourceOptions {
  const common = {
    entities,
    synchronize: false,
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    logging: false,
  } as const;
  if (db.type === 'sqlite') {
    mkdirSync(dirname(resolve(db.file)), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database: db.file,
      migrations: SQLITE_MIGRATIONS,
      // WAL: readers on the main connection never wait for the writer connection.
      enableWAL: true,
      // A write from the main connection waits up to this long for the writer's lock.
      timeout: 10_000,
      prepareDatabase: (connection: { pragma(sql: string): unknown }) => {
        connection.pragma('foreign_keys = ON');
      },
    };
  }
  return {
    ...common,
    type: 'mysql',
    // mysql2, its pools setting each connection's session (sql_mode, utf8mb4, UTC, READ COMMITTED) as it opens and
    // counting their connections for the metrics: session.ts, pool-use.ts.
    driver: mysqlDriver(),
    url: db.url,
    migrations: MYSQL_MIGRATIONS,
    charset: 'utf8mb4_unicode_ci',
    // DATETIME columns hold UTC; mysql2 must neither shift nor guess the zone.
    timezone: 'Z',
    poolSize: 10,
    connectTimeout: 5000,
    // mysql2's documented `trace` option, on by default, captures a stack trace at every query of its
    // promise API (which TypeORM 1 uses) to prefix a failed query's stack with its caller's: a cost and
    // garbage on every statement, for stacks the service never shows a client.
    extra: { trace: false },
  };
}
