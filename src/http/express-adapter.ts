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
    this.httpServer = createServer({ IncomingMessage: ServiceRequest, ServerResponse: ServiceResponse }, app);
  }
}

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
