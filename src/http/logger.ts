import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config/config.js';

/**
 * Structured JSON logs on stdout (pino). Nothing that authenticates a client
 * (Authorization headers, secrets, tokens) is ever passed to the logger.
 */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { service: 'inventory' }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** DI token for the process logger. */
export abstract class AppLogger {
  abstract readonly log: Logger;
}

/**
 * Routes Nest's own messages into the same JSON log. Its routine start-up
 * chatter (module and route map) goes to debug, so that at info a start shows
 * only what an operator needs; warnings and errors keep their level.
 */
export class NestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
