import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { CONNECTION_TIMES, ServiceExpressAdapter } from './express-adapter.js';

describe("ServiceExpressAdapter (NestJS's Express adapter on a server with the service's connection times)", () => {
  let server: Server;
  let app: Express;

  beforeAll(async () => {
    const adapter = new ServiceExpressAdapter();
    adapter.initHttpServer({});
    app = adapter.getInstance<Express>();
    server = adapter.getHttpServer() as Server;
    app.get('/thing/:id', (req, res) => {
      res.status(201).json({ id: req.params.id, host: req.get('host'), app: req.app === app && res.app === app });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('makes the server with the connection times', () => {
    expect({
      requestTimeout: server.requestTimeout,
      headersTimeout: server.headersTimeout,
      keepAliveTimeout: server.keepAliveTimeout,
    }).toEqual({ requestTimeout: 30_000, headersTimeout: 30_000, keepAliveTimeout: 65_000 });
    expect(CONNECTION_TIMES.connectionsCheckingInterval).toBe(1_000);
  });

  it("answers as Express does: its request and response methods, the route's parameters, req.app", async () => {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/thing/a1`);
    expect({ status: res.status, keepAlive: res.headers.get('keep-alive'), body: await res.json() }).toEqual({
      status: 201,
      keepAlive: 'timeout=65',
      body: { id: 'a1', host: `127.0.0.1:${port}`, app: true },
    });
  });

  it("keeps NestJS's own server for HTTPS or forceCloseConnections", () => {
    const adapter = new ServiceExpressAdapter();
    adapter.initHttpServer({ forceCloseConnections: true });
    expect((adapter.getHttpServer() as Server).requestTimeout).not.toBe(30_000);
  });
});
