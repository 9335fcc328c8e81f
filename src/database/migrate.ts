import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig, loadDotEnv } from '../config/config.js';
import { dataSourceOptions } from './data-source.js';

/** `npm run migration:run`: applies pending migrations to DATABASE_URL and exits. */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const dataSource = new DataSource(dataSourceOptions(config.database));
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    process.stdout.write(`${JSON.stringify({ applied: applied.map((m) => m.name) })}\n`);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
