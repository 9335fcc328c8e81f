import type { Server } from 'node:http';
import type { ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { AppModule } from './app.module.js';
import type { AppConfig } from './config/config.js';
import { createLogger, NestLogger } from './http/logger.js';
import { requestContext } from './http/request-context.js';
import { setupOpenApi } from './openapi.js';

/** DECISIONS "Errors": a body over 1 MiB is refused with 413. */
export const BODY_LIMIT = '1mb';

/**
 * Builds the whole service as it runs in production; `main.ts` listens on it,
 * the tests drive it through HTTP. Connecting applies pending migrations.
 */
export async function createApp(
  config: AppConfig,
  options: { logger?: Logger; imports?: ModuleMetadata['imports'] } = {},
): Promise<NestExpressApplication> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ config, logger, imports: options.imports }),
    { bodyParser: false, logger: new NestLogger(logger), abortOnError: false },
  );
  // Order matters: the request id and version headers come first, so that
  // even body-parser failures and unknown routes carry them.
  app.use(requestContext(logger));
  app.useBodyParser('json', { limit: BODY_LIMIT });
  app.useBodyParser('urlencoded', { limit: BODY_LIMIT, extended: false });
  app.disable('x-powered-by');
  app.setGlobalPrefix('api/v1', { exclude: ['health'] });
  setupOpenApi(app);
  await app.init();
  return app;
}

/** Stops accepting connections, lets requests in flight finish, then closes the database pool. */
export async function closeGracefully(app: NestExpressApplication, graceMs = 10_000): Promise<void> {
  const server = app.getHttpServer() as Server;
  const force = setTimeout(() => server.closeAllConnections(), graceMs);
  force.unref();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  clearTimeout(force);
  await app.close();
}
