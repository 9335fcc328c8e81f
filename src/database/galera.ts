import type { DataSource } from 'typeorm';

/** Whether the MySQL/MariaDB server is a Galera node (`wsrep_on`; MySQL has no such variable): its retry budget's default is longer (retry.ts). */
export async function isGaleraNode(db: DataSource): Promise<boolean> {
  const found = (await db.query("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")) as Array<{ Value: string | null }>;
  return found[0]?.Value?.toUpperCase() === 'ON';
}
