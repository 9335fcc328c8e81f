import type { DataSource } from 'typeorm';
import type { Begun } from './transaction-context.js';

/**
 * MySQL/MariaDB: a transaction on a pooled connection (whose session is READ
 * COMMITTED: session.ts), through the query runner's own calls; the
 * connection goes back to the pool when the transaction ends.
 */
export async function beginMysql(dataSource: DataSource): Promise<Begun> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
  } catch (error) {
    await runner.release();
    throw error;
  }
  return {
    manager: runner.manager,
    commit: () => runner.commitTransaction(),
    rollback: () => runner.rollbackTransaction(),
    release: () => runner.release(),
  };
}
