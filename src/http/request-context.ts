import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';

/** What the service attaches to each request. */
export interface RequestContext {
  id: string;
  /** Set once the caller is authenticated, for the request log. */
  clientId?: string;
  /** Set when no route of the service took the request (NestJS's own not-found handler answered it). */
  unrouted?: boolean;
}

declare module 'express-serve-static-core' {
  interface Request {
    context: RequestContext;
  }
}

/** What else sees every finished request besides the log line (the metrics): `route` is the matched template, null when none matched. */
export type RequestObserver = (req: Request, res: Response, route: string | null, durationMs: number) => void;

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/**
 * First of what every request goes through, including those that never reach a route
 * (404, malformed JSON, oversized body): gives it an id (the client's
 * `X-Request-Id` when it is a safe token, else a new UUID), sets the headers
 * every response carries (DECISIONS "General"), and when the response is
 * finished writes one log line and hands the request to `observe` (the
 * metrics, when enabled): one listener for both. Not a middleware of its own
 * (it calls no `next`): `frontMiddleware` runs it, then goes on.
 */
export function requestContext(logger: Logger, observe?: RequestObserver) {
  return (req: Request, res: Response): void => {
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();
    req.context = { id };
    res.setHeader('X-Request-Id', id);
    res.setHeader('X-API-Version', 'v1');
    const started = performance.now();
    res.once('finish', () => {
      const durationMs = performance.now() - started;
      const route = routeOf(req);
      logger.info(
        { reqId: id, method: req.method, route: route ?? req.path, status: res.statusCode, durationMs, clientId: req.context.clientId },
        'request',
      );
      observe?.(req, res, route, durationMs);
    });
  };
}

/** The matched route pattern (`/api/v1/Item/:partNo`), or null when none matched. */
function routeOf(req: Request): string | null {
  // NestJS answers a path no controller has with a catch-all route of its own: that is no route of the service's.
  if (req.context.unrouted) return null;
  const pattern: unknown = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : null;
}
