// `node scripts/openapi-document.js <file>` (after `npm run build`): boots the
// built service on a temporary SQLite file, fetches /api/v1/openapi.json over
// HTTP as a client would, and writes it to <file> (`npm run lint:openapi`).
import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp } from '../dist/src/bootstrap.js';
import { AppConfig, parseDatabaseUrl } from '../dist/src/config/config.js';

async function main(file) {
  if (!file) throw new Error('usage: node scripts/openapi-document.js <file>');
  const dir = mkdtempSync(join(tmpdir(), 'inventory-openapi-'));
  const config = new AppConfig({
    port: 0,
    database: parseDatabaseUrl(`sqlite:${join(dir, 'openapi.sqlite')}`),
    tokenTtlSeconds: 14400,
    rateLimitPerMinute: 100,
    accountCacheSeconds: 60,
    redisUrl: null,
    logLevel: 'silent',
    // Nothing is paged here: any key serves.
    listCursorSecret: 'openapi-document',
    eventsRetentionDays: 30,
    allocationExpirySeconds: 30,
  });
  const app = await createApp(config, { logger: pino({ level: 'silent' }), announce: () => undefined });
  try {
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
    writeFileSync(file, `${JSON.stringify(await res.json(), null, 2)}\n`);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv[2]).catch((error) => {
  process.stderr.write(`openapi-document: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
