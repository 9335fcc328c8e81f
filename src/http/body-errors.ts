import type { NextFunction, Request, Response } from 'express';
import { MalformedRequest, PayloadTooLarge } from '../errors.js';

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

/** Names that reach an object's prototype when assigned; no field or parameter of the API has them. */
export function isPrototypeKey(key: string): boolean {
  return key === '__proto__' || key === 'constructor' || key === 'prototype';
}

/** How deep a JSON body may nest; the API's bodies are flat objects. */
export const MAX_BODY_DEPTH = 32;

/**
 * Middleware after the body parsers, one iterative walk over the parsed body:
 * - a body nested deeper than MAX_BODY_DEPTH is a `bad_request` (validation
 *   walks bodies recursively, and 2,000 levels in 14 KB overflowed the stack
 *   into a 500, found by fuzzing);
 * - `__proto__`, `constructor` and `prototype` keys are deleted at every depth
 *   (class-transformer failed on a nested `{"constructor": null}`, another
 *   500, and such keys are how prototype-pollution payloads travel).
 */
export function sanitizeBody(req: Request, _res: Response, next: NextFunction): void {
  const stack: Array<[unknown, number]> = [[req.body, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_BODY_DEPTH) return next(new MalformedRequest(`Request body is nested deeper than ${MAX_BODY_DEPTH} levels.`));
    const fields = value as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (isPrototypeKey(key)) delete fields[key];
      else stack.push([fields[key], depth + 1]);
    }
  }
  next();
}
