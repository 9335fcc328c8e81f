import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import { errorBody } from './error.responses.js';

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  request_header_fields_too_large: 'Request line and headers are larger than 16 KiB.',
  request_timeout: 'The request was not received in time.',
};

/**
 * Requests that Node's HTTP parser refuses before any middleware sees them:
 * headers (the URL included) over Node's 16 KiB limit, a broken request line,
 * a header timeout. Node's own answer has no body; this one is the spec's
 * error object (DECISIONS "Errors"), with the headers every response carries.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  // The answers each connection has not finished (a client may pipeline requests): added as a
  // request arrives, removed when its response closes, so that nothing outlives its answer.
  const unfinished = new WeakMap<Socket, Set<ServerResponse>>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    let answers = unfinished.get(socket);
    if (!answers) unfinished.set(socket, (answers = new Set()));
    answers.add(res);
    res.once('close', () => {
      answers.delete(res);
      if (answers.size === 0 && unfinished.get(socket) === answers) unfinished.delete(socket);
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Nothing to answer on a socket that is gone or already mid-response: an answer in progress
    // would be corrupted by another one written into it.
    const midResponse = [...(unfinished.get(socket) ?? [])].some((res) => res.headersSent);
    if (error.code === 'ECONNRESET' || !socket.writable || midResponse) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      error.code === 'HPE_HEADER_OVERFLOW' ? 'request_header_fields_too_large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'bad_request';
    const status = ERROR_STATUS[code];
    const body = JSON.stringify(errorBody(code, MESSAGES[code] ?? 'Malformed HTTP request.'));
    const id = randomUUID();
    logger.info({ reqId: id, status, parseError: error.code }, 'request refused by the HTTP parser');
    // Keep reading what the client still sends (the rest of its headers or
    // body) while the answer goes out: closing a socket with unread data
    // resets the connection, and the client would never see the answer.
    socket.on('data', () => undefined);
    setTimeout(() => socket.destroy(), 5_000).unref();
    socket.end(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: ${id}`,
        'X-API-Version: v1',
        'X-Content-Type-Options: nosniff',
        'Cache-Control: no-store',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
