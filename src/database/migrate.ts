import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig, loadDotEnv } from '../config/config.js';
import { dataSourceOptions } from './data-source.js';
import { runMigrations } from './run-migrations.js';

/** `npm run migration:run`: applies pending migrations to DATABASE_URL and exits (safe beside starting instances). */
async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const dataSource = new DataSource(dataSourceOptions(config.database));
  await dataSource.initialize();
  try {
    const applied = await runMigrations(dataSource);
    process.stdout.write(`${JSON.stringify({ applied: applied.map((m) => m.name) })}\n`);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
