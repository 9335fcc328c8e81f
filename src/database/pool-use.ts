import type { DataSource } from 'typeorm';

/** A pooled connection as the pool's events give it: mysql2's PoolConnection, an EventEmitter. */
interface PooledConnection {
  once(event: 'end' | 'error', listener: () => void): unknown;
}

/** The events of a mysql2 pool that PoolUse listens to (mysql2's Pool typings declare these four). */
export interface PoolEvents {
  on(event: 'connection' | 'acquire' | 'release', listener: (connection: PooledConnection) => void): unknown;
  on(event: 'enqueue', listener: () => void): unknown;
}

/**
 * What a MySQL/MariaDB pool's connections are doing, counted from the pool's
 * public events rather than read from its fields (which are mysql2's own):
 *
 * - a connection is open from the pool's 'connection' (it connected) until
 *   its own first 'end' or 'error', after either of which mysql2 drops it
 *   from the pool;
 * - it is in use from the pool's 'acquire' until its 'release' (back to the
 *   idle ones) or its end. A connection released while requests wait goes
 *   straight to the first of them, with neither event: it stays in use, as
 *   it is;
 * - 'enqueue' is a request that found every connection in use and waits.
 *   mysql2 says nothing when a waiting request is served, so the waits are
 *   counted, not the requests waiting at a given moment.
 *
 * The metrics read it (`db_pool_connections`, `db_pool_waits_total`).
 */
export class PoolUse {
  private readonly open = new Set<PooledConnection>();
  private readonly used = new Set<PooledConnection>();
  private enqueued = 0;

  /** Starts counting `pool`'s connections, before its first one opens. */
  watch<P extends PoolEvents>(pool: P): P {
    pool.on('connection', (connection) => {
      this.open.add(connection);
      const gone = (): void => {
        this.open.delete(connection);
        this.used.delete(connection);
      };
      // `once`, as the pool's own listeners: an 'error' after the first is left as unhandled as it was.
      connection.once('end', gone);
      connection.once('error', gone);
    });
    pool.on('acquire', (connection) => {
      if (this.open.has(connection)) this.used.add(connection);
    });
    pool.on('release', (connection) => {
      this.used.delete(connection);
    });
    pool.on('enqueue', () => {
      this.enqueued += 1;
    });
    return pool;
  }

  /** Open connections handed out and not yet released. */
  get inUse(): number {
    return this.used.size;
  }

  /** Open connections waiting in the pool to be handed out. */
  get idle(): number {
    return this.open.size - this.used.size;
  }

  /** Requests for a connection that had to wait, since the pool was made. */
  get waits(): number {
    return this.enqueued;
  }
}

/** The PoolUse of each driver module `mysqlDriver` made (session.ts), by the module. */
const uses = new WeakMap<object, PoolUse>();

/** Marks `driver`, a driver module for TypeORM's `driver` option, as the one whose pools `use` counts. */
export function countingPools<D extends object>(driver: D, use: PoolUse): D {
  uses.set(driver, use);
  return driver;
}

/**
 * The PoolUse of `dataSource`'s pool, found from its `driver` option (the
 * module data-source.ts gave it); null on SQLite, or for a data source whose
 * driver module does not count.
 */
export function poolUse(dataSource: DataSource): PoolUse | null {
  const options = dataSource.options;
  return options.type === 'mysql' && options.driver ? (uses.get(options.driver as object) ?? null) : null;
}
