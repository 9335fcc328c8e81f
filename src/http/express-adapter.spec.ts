import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express, Request, Response } from 'express';
import { bornWith, CONNECTION_TIMES, ServiceExpressAdapter } from './express-adapter.js';

describe("ServiceExpressAdapter (NestJS's Express adapter on a server of the service's)", () => {
  let server: Server;
  let app: Express;
  const seen: Array<{ req: Request; res: Response; reqAtArrival: object; resAtArrival: object }> = [];
  const atArrival = new WeakMap<object, object>();

  beforeAll(async () => {
    const adapter = new ServiceExpressAdapter();
    adapter.initHttpServer({});
    app = adapter.getInstance<Express>();
    server = adapter.getHttpServer() as Server;
    // Before Express's first step: the prototypes node:http made the request and response with.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      atArrival.set(req, Object.getPrototypeOf(req));
      atArrival.set(res, Object.getPrototypeOf(res));
    });
    app.get('/thing/:id', (req, res) => {
      seen.push({ req, res, reqAtArrival: atArrival.get(req)!, resAtArrival: atArrival.get(res)! });
      res.status(201).json({ id: req.params.id, host: req.get('host'), app: req.app === app && res.app === app });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (id: string) => {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/thing/${id}`);
    return { status: res.status, keepAlive: res.headers.get('keep-alive'), body: await res.json() };
  };

  it('makes the server with the connection times', () => {
    expect({ requestTimeout: server.requestTimeout, headersTimeout: server.headersTimeout, keepAliveTimeout: server.keepAliveTimeout }).toEqual({
      requestTimeout: 30_000,
      headersTimeout: 30_000,
      keepAliveTimeout: 65_000,
    });
    expect(CONNECTION_TIMES.connectionsCheckingInterval).toBe(1_000);
  });

  it("answers as Express does: its request and response methods, the route's parameters, req.app", async () => {
    const { port } = server.address() as AddressInfo;
    await expect(get('a1')).resolves.toEqual({ status: 201, keepAlive: 'timeout=65', body: { id: 'a1', host: `127.0.0.1:${port}`, app: true } });
    const { req, res } = seen.at(-1)!;
    expect(req).toBeInstanceOf(IncomingMessage);
    expect(res).toBeInstanceOf(ServerResponse);
  });

  it("makes every request and response with the prototype Express then sets, so that Express's setPrototypeOf changes nothing", async () => {
    await get('b2');
    await get('c3');
    for (const { req, res, reqAtArrival, resAtArrival } of seen.slice(-2)) {
      expect(reqAtArrival).toBe(app.request);
      expect(resAtArrival).toBe(app.response);
      expect(Object.getPrototypeOf(req)).toBe(reqAtArrival);
      expect(Object.getPrototypeOf(res)).toBe(resAtArrival);
    }
  });

  it('leaves Express and node:http as they were', () => {
    // A fresh adapter: what Express's app holds before and after the server is made.
    const fresh = new ServiceExpressAdapter();
    const express = fresh.getInstance<Express>();
    const before = { request: express.request, response: express.response, requestKeys: Reflect.ownKeys(express.request), responseKeys: Reflect.ownKeys(express.response) };
    const chain = [Object.getPrototypeOf(express.request), Object.getPrototypeOf(express.response)];
    fresh.initHttpServer({});
    expect({ request: express.request, response: express.response, requestKeys: Reflect.ownKeys(express.request), responseKeys: Reflect.ownKeys(express.response) }).toEqual(before);
    expect(express.request).toBe(before.request);
    expect([Object.getPrototypeOf(express.request), Object.getPrototypeOf(express.response)]).toEqual(chain);
    expect(Object.getPrototypeOf(new IncomingMessage(null as never))).toBe(IncomingMessage.prototype);
  });

  it('refuses a prototype that does not inherit from the class', () => {
    expect(() => bornWith(IncomingMessage, {})).toThrow('bornWith: the prototype does not inherit from IncomingMessage');
  });

  it.each([{ forceCloseConnections: true }, { return503OnClosing: true }])("keeps NestJS's own server for %j", (options) => {
    const adapter = new ServiceExpressAdapter();
    adapter.initHttpServer(options);
    expect((adapter.getHttpServer() as Server).requestTimeout).not.toBe(30_000);
  });
});
