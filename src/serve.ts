import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { closeGracefully, createApp } from './bootstrap.js';
import { ConfigError, loadConfig, loadDotEnv } from './config/config.js';
import { createLogger } from './http/logger.js';
import { runtimeProblem } from './database/sqlite-driver.js';
import { compileCacheState, flushCompileCache } from './compile-cache.js';

/**
 * The service's process as main.ts starts it: configuration, logger, signal
 * handlers, the app, listening. `signalled`: a SIGTERM or SIGINT that came
 * while main.ts loaded this module, which ends the start at once (status 0).
 */
export function serve(signalled?: NodeJS.Signals): Promise<void> {
  return main(signalled).catch((error: unknown) => {
    process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

async function main(signalled: NodeJS.Signals | undefined): Promise<void> {
  loadDotEnv();
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Invalid configuration: ${error.message}\n`);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel);
  const driverProblem = runtimeProblem(config.database.type);
  if (driverProblem) {
    process.stderr.write(`Start-up failed: ${driverProblem}\n`);
    process.exit(1);
  }

  // Own handlers rather than Nest's shutdown hooks, which re-raise the signal:
  // a SIGTERM'd service should end with status 0 once it has drained. They are
  // installed first, so that a signal during start-up also ends cleanly.
  let app: NestExpressApplication | undefined;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    if (!app) return; // start-up sees `stopping` and closes what it opened
    closeGracefully(app, { delayMs: config.shutdownDelayMs }).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (signalled) stop(signalled);

  if (stopping) process.exit(0);
  const created = await createApp(config, { logger });
  if (stopping) {
    await created.close();
    process.exit(0);
  }
  // The modules' compiled code goes to disk before the port opens (on a warm start there is nothing to write).
  flushCompileCache();
  await created.listen(config.port);
  app = created;
  if (stopping) {
    await closeGracefully(app);
    process.exit(0);
  }
  const { port } = created.getHttpServer().address() as AddressInfo;
  const cache = compileCacheState();
  logger.info({ port, database: config.database.type, compileCache: cache.directory, ...(cache.off ? { compileCacheOff: cache.off } : {}) }, 'listening');
}
