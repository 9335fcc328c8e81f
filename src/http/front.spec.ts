import express, { type ErrorRequestHandler, type Request, type Response } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { DomainError } from '../errors.js';
import { fixedHeaders, frontMiddleware, securityHeaders } from './front.js';

/** An app with the front middleware and one route that answers what it was given. */
function appWith(context: (req: Request, res: Response) => void = () => undefined, security?: Parameters<typeof frontMiddleware>[1]) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(frontMiddleware(context, security));
  app.all('/echo', (req, res) => {
    res.json({ hasBodyProperty: 'body' in req, body: req.body ?? null });
  });
  const toJson: ErrorRequestHandler = (error, _req, res, _next) => {
    res.status(error instanceof DomainError ? 400 : 500).json({ code: (error as DomainError).code ?? 'other', message: (error as Error).message });
  };
  app.use(toJson);
  return app;
}

/** What helmet itself sets on an answer, with the service's options. */
async function helmetHeaders(): Promise<Record<string, string>> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(securityHeaders());
  app.get('/echo', (_req, res) => {
    res.json({});
  });
  return securityPart((await request(app).get('/echo')).headers);
}

const NOT_SECURITY = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);
const securityPart = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !NOT_SECURITY.has(name)));

describe('frontMiddleware', () => {
  it('sends exactly the headers helmet sends, on a GET, a POST and an error', async () => {
    const expected = await helmetHeaders();
    expect(Object.keys(expected)).toEqual(expect.arrayContaining(['content-security-policy', 'strict-transport-security', 'x-content-type-options', 'x-frame-options']));
    const app = appWith();
    expect(securityPart((await request(app).get('/echo')).headers)).toEqual(expected);
    expect(securityPart((await request(app).post('/echo').send({ a: 1 })).headers)).toEqual(expected);
    expect(securityPart((await request(app).post('/echo').set('content-type', 'application/json').send('{"a":')).headers)).toEqual(expected);
  });

  it('removes what helmet removes, even a header set before it', async () => {
    const app = appWith((_req, res) => {
      res.setHeader('X-Powered-By', 'something');
    });
    expect((await request(app).get('/echo')).headers['x-powered-by']).toBeUndefined();
  });

  it('runs the request context first, once per request', async () => {
    const seen: string[] = [];
    const app = appWith((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.setHeader('X-Context', 'yes');
    });
    const res = await request(app).post('/echo').set('content-type', 'application/json').send('{"a":');
    expect(res.headers['x-context']).toBe('yes');
    expect(seen).toEqual(['POST /echo']);
  });

  it('reads JSON and form bodies, and leaves a request without one unread', async () => {
    const app = appWith();
    expect((await request(app).post('/echo').send({ a: 1 })).body).toEqual({ hasBodyProperty: true, body: { a: 1 } });
    expect((await request(app).post('/echo').type('form').send('a=1&b=x')).body).toEqual({ hasBodyProperty: true, body: { a: '1', b: 'x' } });
    expect((await request(app).get('/echo')).body).toEqual({ hasBodyProperty: false, body: null });
    // A length of 0 is a body, as body-parser counts it: an empty JSON body reads as {}.
    expect((await request(app).post('/echo').set('content-type', 'application/json').set('content-length', '0')).body).toEqual({ hasBodyProperty: true, body: {} });
  });

  it("turns the parsers' failures into the service's errors, and sanitises what they read", async () => {
    const app = appWith();
    const malformed = await request(app).post('/echo').set('content-type', 'application/json').send('{"a":');
    expect(malformed.body).toEqual({ code: 'bad_request', message: 'Malformed JSON in request body.' });
    const tooLarge = await request(app).post('/echo').send({ a: 'x'.repeat(1024 * 1024) });
    expect(tooLarge.body.code).toBe('payload_too_large');
    const hostile = await request(app).post('/echo').set('content-type', 'application/json').send('{"a":{"constructor":{"prototype":1},"b":2}}');
    expect(hostile.body).toEqual({ hasBodyProperty: true, body: { a: { b: 2 } } });
  });
});

describe('fixedHeaders', () => {
  it('gives the headers of a middleware that sets the same ones for every request', () => {
    const headers = fixedHeaders(helmet());
    expect(headers?.set).toEqual(expect.arrayContaining([['X-Content-Type-Options', 'nosniff']]));
    expect(headers?.removed).toEqual(['X-Powered-By']);
  });

  it('refuses a middleware whose headers depend on the request, so that it runs on every request', async () => {
    let n = 0;
    const perRequest = (_req: Request, res: Response, next: () => void) => {
      res.setHeader('X-Nonce', String(++n));
      next();
    };
    expect(fixedHeaders(perRequest)).toBeNull();
    const app = appWith(undefined, perRequest);
    const first = Number((await request(app).get('/echo')).headers['x-nonce']);
    expect(Number((await request(app).post('/echo').send({ a: 1 })).headers['x-nonce'])).toBe(first + 1);
    expect(fixedHeaders((_req, _res, next) => next(new Error('no')))).toBeNull();
    expect(fixedHeaders((_req, _res, _next) => undefined)).toBeNull();
  });
});
