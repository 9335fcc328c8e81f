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

/**
 * JSON.parse reviver for request bodies: drops `__proto__`, `constructor` and
 * `prototype` keys at any depth. No field of the API has those names, and
 * class-transformer fails on a nested `{"constructor": null}` (a 500 found by
 * fuzzing); dropping them also keeps prototype-pollution payloads out.
 */
export function dropPrototypeKeys(key: string, value: unknown): unknown {
  return isPrototypeKey(key) ? undefined : value;
}

/** Names that reach an object's prototype when assigned; no field or parameter of the API has them. */
export function isPrototypeKey(key: string): boolean {
  return key === '__proto__' || key === 'constructor' || key === 'prototype';
}

/** How deep a JSON body may nest; the API's bodies are flat objects. */
export const MAX_BODY_DEPTH = 32;

/**
 * Middleware after the body parsers: a body nested deeper than MAX_BODY_DEPTH
 * is a `bad_request`. Validation walks bodies recursively, and a few thousand
 * levels (a 14 KB body) overflowed the stack into a 500 (found by fuzzing).
 * The walk here is iterative.
 */
export function limitBodyDepth(req: Request, _res: Response, next: NextFunction): void {
  const stack: Array<[unknown, number]> = [[req.body, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_BODY_DEPTH) return next(new MalformedRequest(`Request body is nested deeper than ${MAX_BODY_DEPTH} levels.`));
    for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  next();
}
