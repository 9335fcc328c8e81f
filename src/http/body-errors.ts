import type { NextFunction, Request, Response } from 'express';
import { MalformedRequest, PayloadTooLarge } from './errors.js';

/**
 * Express error middleware placed right after the body parsers: turns their
 * failures (http-errors with a `type`) into the service's coded errors, which
 * the exception filter then answers like any other (DECISIONS "Errors").
 */
export function bodyParserErrors(error: unknown, _req: Request, _res: Response, next: NextFunction): void {
  const { type, status, expose } = (error ?? {}) as { type?: unknown; status?: unknown; expose?: unknown };
  if (type === 'entity.too.large') return next(new PayloadTooLarge());
  if (type === 'entity.parse.failed') return next(new MalformedRequest('Malformed JSON in request body.'));
  if (typeof status === 'number' && status < 500 && expose === true) {
    return next(new MalformedRequest(`The request body could not be read: ${(error as Error).message}`));
  }
  next(error);
}
