import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

/** What the service attaches to each request. */
export interface RequestContext {
  id: string;
  /** Set once the caller is authenticated, for the request log. */
  clientId?: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    context: RequestContext;
  }
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/**
 * First middleware of every request, including those that never reach a route
 * (404, malformed JSON, oversized body): gives it an id (the client's
 * `X-Request-Id` when it is a safe token, else a new UUID), sets the headers
 * every response carries (DECISIONS "General"), and writes one log line when
 * the response is finished.
 */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();
    req.context = { id };
    res.setHeader('X-Request-Id', id);
    res.setHeader('X-API-Version', 'v1');
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info(
        {
          reqId: id,
          method: req.method,
          route: routeOf(req),
          status: res.statusCode,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
          clientId: req.context.clientId,
        },
        'request',
      );
    });
    next();
  };
}

/** The matched route pattern (`/api/v1/Item/:partNo`), or the bare path when none matched. */
function routeOf(req: Request): string {
  const pattern: unknown = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : req.path;
}
