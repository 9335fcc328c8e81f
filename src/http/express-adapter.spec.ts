import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import type { Express, Request, Response } from 'express';
import { ServiceExpressAdapter } from './express-adapter.js';

// V8's own answer to "do these two objects share a map (hidden class)?". The
// flag lets functions compiled from here on use V8's intrinsics.
setFlagsFromString('--allow-natives-syntax');
const haveSameMap = ((): ((a: object, b: object) => boolean) => {
  try {
    return new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
  } catch (error) {
    throw new Error(`this Node cannot compile V8's %HaveSameMap (--allow-natives-syntax set at run time): ${String(error)}`);
  }
})();

describe('ServiceExpressAdapter (requests born with the prototypes Express gives them)', () => {
  let server: Server;
  let app: Express;
  const seen: Array<{ req: Request; res: Response; protoAtArrival: object }> = [];
  const protoAtArrival = new WeakMap<object, object>();

  beforeAll(async () => {
    const adapter = new ServiceExpressAdapter();
    adapter.initHttpServer({});
    app = adapter.getInstance<Express>();
    server = adapter.getHttpServer() as Server;
    // Before Express sees the request: the prototype node:http constructed it with.
    server.prependListener('request', (req: IncomingMessage) => protoAtArrival.set(req, Object.getPrototypeOf(req)));
    app.get('/thing/:id', (req, res) => {
      seen.push({ req, res, protoAtArrival: protoAtArrival.get(req)! });
      res.status(201).json({ id: req.params.id, host: req.get('host'), app: req.app === app && res.app === app });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (id: string) => {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/thing/${id}`);
    return { status: res.status, body: await res.json() };
  };

  it("answers as Express does: its request and response methods, the route's parameters, req.app", async () => {
    await expect(get('a1')).resolves.toEqual({ status: 201, body: { id: 'a1', host: expect.stringMatching(/^127\.0\.0\.1:\d+$/), app: true } });
    const { req, res } = seen.at(-1)!;
    expect(req).toBeInstanceOf(IncomingMessage);
    expect(res).toBeInstanceOf(ServerResponse);
    expect(Object.getPrototypeOf(req)).toBe(app.request);
    expect(Object.getPrototypeOf(res)).toBe(app.response);
  });

  it('constructs every request with the prototype Express then sets, so that setting it changes nothing', async () => {
    await get('b2');
    const { req, protoAtArrival } = seen.at(-1)!;
    expect(protoAtArrival).toBe(app.request);
    expect(Object.getPrototypeOf(req)).toBe(protoAtArrival);
  });

  it('gives all requests one map, and all responses one map', async () => {
    await get('c3');
    await get('d4');
    const [first, second] = seen.slice(-2);
    expect(haveSameMap(first.req, second.req)).toBe(true);
    expect(haveSameMap(first.res, second.res)).toBe(true);
  });
});
