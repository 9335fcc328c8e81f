import { connect, type Socket } from 'node:net';
import { testDatabaseKind, type TestDatabase } from '../app.factory.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { givenWorkloadDatabase } from './workload.js';

/**
 * Slow and idle clients against the built service (DECISIONS "Errors"):
 * - a request whose headers and body have not all arrived within 30 s is
 *   answered 408 `request_timeout` in the error shape and its connection
 *   closed, however many such clients there are, while the service goes on
 *   serving everyone else;
 * - a kept-alive connection is not closed under a client that may still send
 *   on it: the service keeps idle connections for the 65 s it announces
 *   (`Keep-Alive: timeout=65`), past the few seconds most clients keep theirs.
 */
const REQUEST_TIMEOUT_S = 30;
/** The 408 may come this much later than 30 s: Node checks every second, and this machine is small and busy. */
const LATE_S = 8;
const BODY_TRICKLERS = 1_000;
const HEADER_TRICKLERS = 200;

interface Trickle {
  socket: Socket;
  answer: string;
  closedAfterS?: number;
}

describe(`slow and idle clients (${testDatabaseKind()})`, () => {
  let db: TestDatabase;
  let service: ServiceProcess;

  beforeAll(async () => {
    ({ db } = await givenWorkloadDatabase([], [1]));
    service = await startService({ DATABASE_URL: db.url });
  });

  afterAll(async () => {
    await service?.kill('SIGKILL');
    await db?.drop();
  });

  it(`answers ${BODY_TRICKLERS} trickled Batch bodies and ${HEADER_TRICKLERS} trickled headers 408 after ${REQUEST_TIMEOUT_S} s and closes them, serving others meanwhile`, async () => {
    const started = Date.now();
    const trickles: Trickle[] = [];
    const open = (first: string, next: string) => {
      const socket = connect(service.port, '127.0.0.1');
      const t: Trickle = { socket, answer: '' };
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => (t.answer += chunk.toString()));
      socket.once('close', () => {
        t.closedAfterS = (Date.now() - started) / 1000;
        clearInterval(drip);
      });
      socket.write(first);
      // One more byte (or header line) every 2 s: never idle long enough for any idle timeout, never done.
      const drip = setInterval(() => socket.writable && socket.write(next), 2_000);
      trickles.push(t);
    };
    for (let i = 0; i < BODY_TRICKLERS; i++) {
      open('POST /api/v1/Inventory/Batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"operations":[', ' ');
    }
    for (let i = 0; i < HEADER_TRICKLERS; i++) open('GET /api/v1/Item HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n');

    // Halfway through, the service answers everyone else as usual.
    await new Promise((r) => setTimeout(r, (REQUEST_TIMEOUT_S / 2) * 1000));
    const health = await fetch(`${service.url}/health`, { signal: AbortSignal.timeout(5_000) });
    expect(health.status).toBe(200);
    expect(trickles.filter((t) => t.closedAfterS !== undefined)).toEqual([]);

    const deadline = started + (REQUEST_TIMEOUT_S + LATE_S + 5) * 1000;
    while (trickles.some((t) => t.closedAfterS === undefined) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    for (const t of trickles) t.socket.destroy();

    const outcome = trickles.map((t) => {
      const [head, body] = t.answer.split('\r\n\r\n');
      const parsed = body ? (JSON.parse(body) as unknown) : null;
      const inTime = t.closedAfterS !== undefined && t.closedAfterS >= REQUEST_TIMEOUT_S - 1 && t.closedAfterS <= REQUEST_TIMEOUT_S + LATE_S;
      return { status: head.split('\r\n')[0], closeHeader: /\r\nConnection: close\r\n/i.test(`${head}\r\n`), parsed, inTime };
    });
    const expected = {
      status: 'HTTP/1.1 408 Request Timeout',
      closeHeader: true,
      parsed: { statusCode: 408, error: 'request_timeout', message: 'The request was not received in time.', details: null },
      inTime: true,
    };
    const wrong = outcome.filter((o) => JSON.stringify(o) !== JSON.stringify(expected));
    expect({ wrong: wrong.length, first: wrong[0] }).toEqual({ wrong: 0, first: undefined });
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });

  it('keeps an idle kept-alive connection for the 65 s it announces, past the 6 s Node closes one after by default', async () => {
    const socket = connect(service.port, '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let received = '';
    let closed = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.once('close', () => (closed = true));
    const ask = async () => {
      received = '';
      socket.write('GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const until = Date.now() + 5_000;
      while (!received.includes('{"status":"ok"}') && !closed && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      return received;
    };
    try {
      const first = await ask();
      expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(first).toMatch(/\r\nKeep-Alive: timeout=65\r\n/i);
      await new Promise((r) => setTimeout(r, 7_000));
      expect(closed).toBe(false);
      expect(await ask()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    } finally {
      socket.destroy();
    }
  });
});
