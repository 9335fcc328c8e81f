import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig, loadDotEnv } from '../config/config.js';
import { dataSourceOptions } from '../database/data-source.js';
import { checkLedger } from './ledger-check.js';

/** `npm run check:ledger`: checks the stock invariant on DATABASE_URL; prints a JSON report, exits 1 on a mismatch. */
async function main(): Promise<number> {
  loadDotEnv();
  const db = new DataSource(dataSourceOptions(loadConfig().database));
  await db.initialize();
  try {
    const report = await checkLedger(db);
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return report.ok ? 0 : 1;
  } finally {
    await db.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
