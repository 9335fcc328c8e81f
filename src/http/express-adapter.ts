import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';

/**
 * NestJS's Express adapter on a node:http server made by the service, for
 * two things node:http takes only when a server is constructed:
 * - the service's connection times (`CONNECTION_TIMES`; the check for
 *   overdue requests is scheduled then);
 * - the classes it makes each request and response with (its documented
 *   `IncomingMessage` and `ServerResponse` options): here node's own, born
 *   with the prototypes Express gives them (`app.request`, `app.response`).
 *   Express's first step sets those prototypes with `Object.setPrototypeOf`;
 *   on an object made with another prototype that gives each request and
 *   each response a V8 map of its own, and every later read of one of their
 *   properties misses V8's caches (docs/quality.md, "Point reads"). Born
 *   with them, the step changes nothing and all requests share their maps.
 *   Nothing of Express's or Node's is modified: the objects are node's
 *   classes' own instances, made with `Reflect.construct`.
 * It overrides the adapter's `initHttpServer` and hands the server over with
 * `setHttpServer`, both documented for adapters that make their own server.
 * HTTPS, `forceCloseConnections` and `return503OnClosing` keep NestJS's own
 * server (the service uses none of them: TLS ends in front of it, and it
 * drains on SIGTERM itself).
 */
export class ServiceExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections || options?.return503OnClosing) return super.initHttpServer(options);
    const app = this.getInstance<Express>();
    this.setHttpServer(
      createServer(
        {
          ...CONNECTION_TIMES,
          IncomingMessage: bornWith(IncomingMessage, app.request),
          ServerResponse: bornWith(ServerResponse, app.response) as typeof ServerResponse,
        },
        app,
      ),
    );
  }
}

/**
 * A constructor for node:http that makes instances of `base` whose prototype
 * is `prototype` (which must inherit from `base.prototype`): `base`'s own
 * constructor runs, with `new.target`'s prototype taken from this function.
 */
export function bornWith<Base extends abstract new (...args: any[]) => object>(base: Base, prototype: object): Base {
  if (!(prototype instanceof base)) throw new Error(`bornWith: the prototype does not inherit from ${base.name}`);
  function Born(...args: unknown[]): object {
    return Reflect.construct(base, args, Born);
  }
  Object.defineProperty(Born, 'prototype', { value: prototype });
  return Born as unknown as Base;
}

/**
 * How long the server waits on a client (node:http's options).
 * - A request whose headers and body have not all arrived within 30 s is
 *   answered 408 `request_timeout` (client-errors.ts writes it) and closed,
 *   so slow clients hold no connection for minutes (Node's own default is
 *   300 s). Node looks for such requests every second, so the answer comes
 *   between 30 and 31 s.
 * - An idle kept-alive connection stays open 65 s, as `Keep-Alive: timeout=65`
 *   tells the client. With Node's 5 s a busy client (or one whose timers ran
 *   late) could send its next request just as the service closed the
 *   connection, and that request failed before any byte of an answer
 *   ("other side closed"). 65 s is longer than the few seconds clients keep
 *   an idle connection and than the 60 s load balancers commonly do, so the
 *   client, not the service, ends an idle connection. An idle connection
 *   holds no request: the 30 s limit starts with the next request's first byte.
 */
export const CONNECTION_TIMES = {
  requestTimeout: 30_000,
  headersTimeout: 30_000,
  connectionsCheckingInterval: 1_000,
  keepAliveTimeout: 65_000,
} as const;
