import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';

/**
 * NestJS's Express adapter, with requests and responses born with the
 * prototypes Express gives them.
 *
 * Why: Express starts every request with `Object.setPrototypeOf(req,
 * app.request)` and the same for the response. On Node 20 that gives each
 * request and each response a map (V8's hidden class) of its own: every
 * property read of `req` or `res` then misses V8's inline caches and is looked
 * up by the runtime, and every property added copies the map. Under
 * callgrind that was about 140 cache misses and a third of the instructions
 * of a `GET /Item/<partNo>` (docs/quality.md, "One map per request").
 *
 * Here node:http constructs each request as a `ServiceRequest` and each
 * response as a `ServiceResponse` (its `IncomingMessage` and `ServerResponse`
 * options), two subclasses of node's own whose prototypes sit in front of
 * Express's `app.request` and `app.response` and then stand in for them. The
 * prototype Express sets is then the one the object already has, which V8
 * leaves as it is: all requests share their maps. What a request or a
 * response can do is unchanged: the chain below is Express's, then node's.
 *
 * HTTPS and `forceCloseConnections` keep NestJS's own server (the service
 * uses neither: TLS ends in front of it).
 */
export class ServiceExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections) return super.initHttpServer(options);
    const app = this.getInstance<Express>();
    const { ServiceRequest, ServiceResponse } = bornWithExpressPrototypes(app);
    this.httpServer = createServer({ IncomingMessage: ServiceRequest, ServerResponse: ServiceResponse, ...CONNECTION_TIMES }, app);
  }
}

/**
 * How long the server waits on a client (node:http's options).
 * - DECISIONS "Errors": a request whose headers and body have not all arrived
 *   within 30 s is answered 408 `request_timeout` (client-errors.ts writes it)
 *   and closed, so slow clients hold no connection for minutes (Node's own
 *   default is 300 s). Node looks for such requests every second, so the
 *   answer comes between 30 and 31 s.
 * - An idle kept-alive connection stays open 65 s, as `Keep-Alive: timeout=65`
 *   tells the client. With Node's 5 s a busy client (or one whose timers ran
 *   late) could send its next request just as the service closed the
 *   connection, and that request failed before any byte of an answer
 *   ("other side closed"). 65 s is longer than the few seconds clients keep
 *   an idle connection and than the 60 s load balancers commonly do, so the
 *   client, not the service, ends an idle connection. An idle connection
 *   holds no request: the 30 s limit starts with the next request's first byte.
 */
const CONNECTION_TIMES = {
  requestTimeout: 30_000,
  headersTimeout: 30_000,
  connectionsCheckingInterval: 1_000,
  keepAliveTimeout: 65_000,
} as const;

/**
 * The request and response classes for `app`: `ServiceRequest.prototype`
 * inherits from Express's `app.request` and becomes `app.request` (the same
 * for responses), so that Express's `setPrototypeOf` changes nothing.
 */
function bornWithExpressPrototypes(app: Express): { ServiceRequest: typeof IncomingMessage; ServiceResponse: typeof ServerResponse } {
  class ServiceRequest extends IncomingMessage {}
  class ServiceResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {}
  Object.setPrototypeOf(ServiceRequest.prototype, app.request);
  Object.setPrototypeOf(ServiceResponse.prototype, app.response);
  app.request = ServiceRequest.prototype as Express['request'];
  app.response = ServiceResponse.prototype as Express['response'];
  return { ServiceRequest, ServiceResponse };
}
