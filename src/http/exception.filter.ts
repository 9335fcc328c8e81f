import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppLogger } from './logger.js';
import { isDatabaseUnavailable, lostConnection } from '../database/errors.js';
import { DomainError, ERROR_STATUS, type ErrorCode, RateLimitExceeded } from '../errors.js';
import { errorBody, type ErrorResponseDto, type RateLimitedResponseDto } from './error.responses.js';

/**
 * The one place where failures become responses (spec "Errors", DECISIONS
 * "Errors"): every error body is `{statusCode, error, message, details}`.
 * Unexpected errors get a generic 500; their stack goes to the log with the
 * request id, never to the client. A request whose database connection died
 * is a 503 instead (see `lostConnection`): nothing the client sent was wrong.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    if (exception instanceof RateLimitExceeded) {
      // DECISIONS "Rate limit": the one failure with its own, simpler body.
      const body: RateLimitedResponseDto = { message: exception.message };
      res.set('Retry-After', String(exception.retryAfterSeconds)).status(429).json(body);
      return;
    }
    const { body, headers } = this.toResponse(exception, req);
    if (exception instanceof DomainError && body.statusCode === 503) {
      // An expected refusal (DECISIONS "Errors"): draining, or a database the service knows is gone. Named, no stack.
      this.logger.log.warn({ reqId: req.context?.id, error: body.error, message: body.message }, 'service unavailable');
    } else if (body.statusCode >= 500) {
      this.logger.log.error({ reqId: req.context?.id, err: exception }, 'unexpected error');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    res.set(headers).status(body.statusCode).json(body);
  }

  private toResponse(exception: unknown, req: Request): { body: ErrorResponseDto; headers: Record<string, string> } {
    if (exception instanceof DomainError) {
      return { body: errorBody(exception.code, exception.message, exception.details), headers: exception.headers };
    }
    if (exception instanceof HttpException) {
      return { body: fromHttpException(exception, req), headers: {} };
    }
    if (isDatabaseUnavailable(exception)) {
      const lost = lostConnection(req);
      return { body: errorBody(lost.code, lost.message), headers: lost.headers };
    }
    return { body: errorBody('internal_error', 'An unexpected error occurred.'), headers: {} };
  }
}

/**
 * The last step of Express's chain: a request no route took, outside the
 * API's prefix (NestJS answers those under it with its own catch-all, which
 * the filter turns into this same body). Registered after `app.init()`, so
 * that it follows every route.
 */
export function answerUnrouted(req: Request, res: Response): void {
  res.status(404).json(unrouted(req));
}

/** The 404 of a path no route of the service has; the request is marked so (the metrics count it as `unmatched`). */
function unrouted(req: Request): ErrorResponseDto {
  if (req.context) req.context.unrouted = true;
  return errorBody('not_found', `No route for ${req.method} ${pathOf(req)}.`);
}

/** Framework exceptions: unknown routes, a malformed path, anything Nest raises itself. */
function fromHttpException(exception: HttpException, req: Request): ErrorResponseDto {
  const status = exception.getStatus();
  // The service's own 404s are DomainErrors: this one is NestJS's answer to a path no route has.
  if (status === 404) return unrouted(req);
  if (status >= 500) return errorBody(status === 501 ? 'not_implemented' : 'internal_error', 'An unexpected error occurred.');
  const code = (Object.keys(ERROR_STATUS) as ErrorCode[]).find((c) => ERROR_STATUS[c] === status) ?? 'bad_request';
  return errorBody(code, exception.message);
}

/** The path as the client sent it (prefix included, no query), kept short. */
function pathOf(req: Request): string {
  const path = req.originalUrl.split('?')[0];
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
