import type { Server } from 'node:http';
import type { ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import { AppModule } from './app.module.js';
import { AdminService, type BootstrapCredentials } from './auth/admin.service.js';
import type { AppConfig } from './config/config.js';
import { TransactionRunner } from './database/transactions.js';
import { EventSequencer } from './events/sequencer.js';
import { WebhookRelay } from './events/webhook-relay.js';
import { AllocationExpiry } from './inventory/allocation-expiry.js';
import { ServiceExpressAdapter } from './http/express-adapter.js';
import { frontMiddleware } from './http/front.js';
import { answerClientErrors } from './http/client-errors.js';
import { answerUnrouted } from './http/exception.filter.js';
import { Readiness } from './health/readiness.js';
import { createLogger, NestLogger } from './http/logger.js';
import { requestContext } from './http/request-context.js';
import { Metrics } from './metrics/metrics.js';
import { setupOpenApi } from './openapi.js';

/**
 * Builds the whole service as it runs in production; `serve.ts` listens on it,
 * the tests drive it through HTTP. Connecting applies pending migrations.
 */
export async function createApp(
  config: AppConfig,
  options: {
    logger?: Logger;
    imports?: ModuleMetadata['imports'];
    /** Where the first start's admin credentials go; stdout unless a test takes them. */
    announce?: (credentials: BootstrapCredentials) => void;
  } = {},
): Promise<NestExpressApplication> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ config, logger, imports: options.imports }),
    // NestJS's Express adapter on a server with the service's connection times (http/express-adapter.ts).
    new ServiceExpressAdapter(),
    { bodyParser: false, logger: new NestLogger(logger), abortOnError: false },
  );
  // First, before the body is read: the request id and version headers, so
  // that even body-parser failures and unknown routes carry them, helmet's
  // security headers, then the body (frontMiddleware). The log line and the
  // metrics are taken when the answer is sent.
  app.use(frontMiddleware(requestContext(logger, config.metricsEnabled ? app.get(Metrics).observe : undefined)));
  answerClientErrors(app.getHttpServer() as Server, logger);
  app.disable('x-powered-by');
  // No conditional GETs in this API; an ETag would hash every response body for nothing.
  app.set('etag', false);
  app.setGlobalPrefix('api/v1', { exclude: ['health', 'health/live', 'health/ready', 'metrics'] });
  setupOpenApi(app);
  await app.init();
  // After every route: a path outside the API's prefix that no route has (NestJS 12 answers only those under it).
  app.use(answerUnrouted);
  // TX_RETRY_BUDGET_MS when set, else the default for the database found (longer on a Galera node).
  const budget = app.get(TransactionRunner).retryBudget;
  logger.info({ budgetMs: budget.ms, source: budget.source }, 'transaction retry budget');
  const credentials = await app.get(AdminService).bootstrapIfEmpty();
  if (credentials) (options.announce ?? announceOnStdout)(credentials);
  // The service publishes events (a turn now, then every second), delivers webhooks and expires allocations; the admin CLI, which builds no app here, does none of it.
  app.get(EventSequencer).start();
  app.get(WebhookRelay).start();
  app.get(AllocationExpiry).start();
  return app;
}

/**
 * The only time a secret is shown: one JSON line on stdout, outside the logger,
 * so that it appears whatever LOG_LEVEL is and never in a later log.
 */
function announceOnStdout(credentials: BootstrapCredentials): void {
  process.stdout.write(
    `${JSON.stringify({ bootstrap: credentials, msg: 'First start: an admin client was created. Save its secret now; it is not shown again.' })}\n`,
  );
}

/**
 * Marks the instance as draining, so that GET /health/ready answers 503; goes
 * on serving for `delayMs` (SHUTDOWN_DELAY_MS), long enough for a load
 * balancer probing readiness to stop sending work here; then stops accepting
 * connections, lets requests in flight finish (at most `graceMs`), and closes
 * the database pool.
 */
export async function closeGracefully(app: NestExpressApplication, { delayMs = 0, graceMs = 10_000 }: { delayMs?: number; graceMs?: number } = {}): Promise<void> {
  app.get(Readiness).drain();
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
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
