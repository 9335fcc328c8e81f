import { json, type NextFunction, type Request, type RequestHandler, type Response, urlencoded } from 'express';
import helmet from 'helmet';
import { bodyParserErrors, sanitizeBody } from './body-errors.js';

/** DECISIONS "Errors": a body over 1 MiB is refused with 413. */
const BODY_LIMIT = '1mb';

/**
 * What every request goes through before its route, as one Express
 * middleware rather than five:
 * 1. `context`: the request id, the headers every answer carries, the log
 *    line and metrics when the answer is sent;
 * 2. helmet's security headers;
 * 3. only when the request has a body: the JSON and form parsers (express's,
 *    which are body-parser), their failures turned into the service's errors
 *    (`bodyParserErrors`), and the body's sanitising walk (`sanitizeBody`).
 *
 * One middleware is one step of Express's router instead of five, and a
 * request without a body (every GET) skips the parsers, which would only find
 * that there is nothing to read. helmet is asked at start which headers it
 * sets and removes (they follow from its options, not from the request); each
 * answer then gets that done directly. Should helmet ever answer two requests
 * differently (a per-request option such as a CSP nonce function), its
 * middleware runs on every request instead.
 */
export function frontMiddleware(context: (req: Request, res: Response) => void, security: Middleware = securityHeaders()): RequestHandler {
  const fixed = fixedHeaders(security);
  const parseJson = json({ limit: BODY_LIMIT });
  const parseForm = urlencoded({ limit: BODY_LIMIT, extended: false });

  const readBody = (req: Request, res: Response, next: NextFunction): void => {
    if (!hasBody(req)) return next();
    parseJson(req, res, (error?: unknown) => {
      if (error) return bodyParserErrors(error, req, res, next);
      parseForm(req, res, (formError?: unknown) => (formError ? bodyParserErrors(formError, req, res, next) : sanitizeBody(req, res, next)));
    });
  };

  if (fixed === null) {
    return (req, res, next) => {
      context(req, res);
      security(req, res, (error?: unknown) => (error ? next(error) : readBody(req, res, next)));
    };
  }
  return (req, res, next) => {
    context(req, res);
    for (let i = 0; i < fixed.removed.length; i++) res.removeHeader(fixed.removed[i]);
    for (let i = 0; i < fixed.set.length; i++) res.setHeader(fixed.set[i][0], fixed.set[i][1]);
    readBody(req, res, next);
  };
}

type Middleware = (req: Request, res: Response, next: (error?: unknown) => void) => void;

/**
 * Security headers on every response, errors and the docs page included
 * (OWASP API8). The docs page loads only its own scripts, so the default
 * Content-Security-Policy holds for it too, less `upgrade-insecure-requests`:
 * the service speaks plain HTTP (TLS, where used, ends in front of it), and a
 * browser that opened the docs by host name would fetch their scripts over
 * https:// and show an empty page.
 */
export function securityHeaders(): Middleware {
  return helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
}

/** What a middleware does to an answer's headers: the ones it sets, in order, and the ones it removes. */
export interface FixedHeaders {
  set: Array<[string, string]>;
  removed: string[];
}

/**
 * The headers a middleware sets and removes, when it does nothing else and
 * the same for two different requests; null otherwise.
 */
export function fixedHeaders(middleware: Middleware): FixedHeaders | null {
  const record = (req: object): FixedHeaders | null => {
    const found: FixedHeaders = { set: [], removed: [] };
    let done = false;
    const res = {
      setHeader: (name: string, value: unknown) => {
        if (typeof value !== 'string') throw new TypeError('not a fixed header');
        found.set.push([name, value]);
        return res;
      },
      removeHeader: (name: string) => {
        found.removed.push(name);
      },
      getHeader: () => undefined,
    };
    try {
      middleware(req as Request, res as unknown as Response, (error?: unknown) => {
        done = error === undefined;
      });
    } catch {
      return null;
    }
    return done ? found : null;
  };
  const first = record({ method: 'GET', url: '/', headers: {} });
  const second = record({ method: 'POST', url: '/api/v1/Token', headers: { host: 'example.com', 'content-type': 'application/json' }, secure: true });
  if (first === null || second === null || JSON.stringify(first) !== JSON.stringify(second)) return null;
  return first;
}

/**
 * Whether a request has a body, decided as body-parser decides it (type-is's
 * hasBody): a Transfer-Encoding header, or a Content-Length that is a number.
 */
function hasBody(req: Request): boolean {
  // isNaN, not Number.isNaN: the header's text is coerced as body-parser coerces it (an empty one counts as 0, a body).
  return req.headers['transfer-encoding'] !== undefined || !isNaN(req.headers['content-length'] as unknown as number);
}
