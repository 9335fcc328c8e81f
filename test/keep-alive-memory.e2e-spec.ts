import http from 'node:http';
import { createTestDatabase, type TestDatabase } from './app.factory.js';
import { type ServiceProcess, startService } from './support/service-process.js';

/**
 * A kept-alive connection holds nothing of the request it carried once the
 * answer is sent: idle connections after large bodies must not pile up the
 * parsed bodies. Sixteen connections, one after the other, each sending a
 * 1 MiB JSON array of empty objects (some 20 MB of heap once parsed;
 * answered 401 without a token) and then left idle, to the built service as
 * production starts it (192 MB of old generation): were each connection to
 * keep its last request, the heap would run out by the sixth or seventh.
 */
const CONNECTIONS = 16;

describe('idle keep-alive connections after large bodies', () => {
  let db: TestDatabase;
  let service: ServiceProcess;

  beforeAll(async () => {
    db = await createTestDatabase();
    service = await startService({ DATABASE_URL: db.url });
  });
  afterAll(async () => {
    await service?.kill('SIGTERM');
    await db?.drop();
  });

  it('holds no request body of an answered request', async () => {
    const body = `[${Array(Math.floor((1024 * 1024 - 2) / 3)).fill('{}').join(',')}]`;
    const agents: http.Agent[] = [];
    try {
      for (let i = 0; i < CONNECTIONS; i++) {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        agents.push(agent);
        const status = await new Promise<number | undefined>((resolve, reject) => {
          const req = http.request(`${service.url}/api/v1/Inventory/Batch`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          });
          req.on('error', reject);
          req.end(body);
        });
        expect(status).toBe(401);
      }
      // Every connection still idle and open (Keep-Alive: 65 s), and the service alive and answering.
      expect((await fetch(`${service.url}/health/live`)).status).toBe(200);
      expect(service.child.exitCode).toBeNull();
    } finally {
      agents.forEach((a) => a.destroy());
    }
  }, 120_000);
});
