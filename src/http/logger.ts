import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config/config.js';

/**
 * Structured JSON logs on stdout (pino). Nothing that authenticates a client
 * (Authorization headers, secrets, tokens) is ever passed to the logger.
 *
 * Written asynchronously: a line is handed to the destination's buffer and
 * written by the next write of it, off the request's path, so lines logged
 * while a write is under way leave together in one write (under load one
 * write carries many request lines, where a synchronous write would cost one
 * system call per request). An idle service still writes each line at once.
 * pino flushes the buffer synchronously when the process exits, normally or
 * by `process.exit`; only a SIGKILL can lose the lines not yet written.
 */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { service: 'inventory' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync: false }));
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
