import { Readable } from 'node:stream';
import { StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { errorBody } from './error.responses.js';

/**
 * A JSON array answered while it is read, for a list too long to hold in
 * memory (DECISIONS "Items": `GET /Item?Category=`). The text is exactly what
 * `res.json(rows.map(toJson))` would send, with the same headers (the guards
 * and middleware have set them before the handler returns).
 *
 * - Memory: one piece at a time. Nest pipes the stream into the response;
 *   pipe() pauses it when `res.write()` returns false and resumes it on
 *   'drain', and the next piece is read only once the last one was taken.
 * - A client that goes away: Nest destroys the stream when the response
 *   closes, which returns the generators here and in `pieces`: nothing more is read.
 * - A failure after the first byte: the status line and headers are gone, so
 *   the connection is cut without the closing chunk. A client sees an
 *   incomplete response, never a well-formed shorter array. It is logged.
 */
export function jsonArrayFile<T>(pieces: AsyncGenerator<T[]>, toJson: (row: T) => unknown, log: Logger): StreamableFile {
  let rows = 0;
  async function* text(): AsyncGenerator<string> {
    yield '[';
    for await (const piece of pieces) {
      let chunk = '';
      for (const row of piece) chunk += (rows++ ? ',' : '') + JSON.stringify(toJson(row));
      if (chunk) yield chunk;
    }
    yield ']';
  }
  return jsonTextFile(text(), 'list response', log, () => ({ rows }));
}

/**
 * The size a piece of a streamed answer is cut at. A JSON text of a few
 * hundred kilobytes sent as one string is a V8 large object, and so is the
 * buffer it is written from: each is a memory mapping of its own, mapped and
 * unmapped per answer, which on this kind of machine cost more than writing
 * the text (`docs/quality.md`, "Large answers in pieces"). Pieces of this
 * size stay in the ordinary heap and in malloc's reused memory.
 */
export const TEXT_PIECE = 64 * 1024;

/**
 * JSON text answered piece by piece as `text` yields it (pieces of about
 * `TEXT_PIECE` characters), with the Content-Type `res.json()` would set and
 * chunked transfer instead of a Content-Length. How a failure or a client
 * that goes away ends the answer is as for `jsonArrayFile`; the log lines
 * name the answer (`what`) and say how far it got (`progress`).
 */
export function jsonTextFile(text: AsyncIterable<string> | Iterable<string>, what: string, log: Logger, progress: () => object): StreamableFile {
  async function* guarded(): AsyncGenerator<string> {
    let ended = false;
    let failed = false;
    try {
      yield* text;
      ended = true;
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      if (!ended && !failed) log.info(progress(), `${what} closed before its end: the client went away`);
    }
  }
  // Byte mode with a small mark: the stream buffers at most the piece it was just given.
  const stream = Readable.from(guarded(), { objectMode: false, highWaterMark: 16 * 1024 });
  return new StreamableFile(stream, { type: 'application/json; charset=utf-8' })
    .setErrorLogger((err) => log.error({ err, ...progress() }, `${what} failed`))
    .setErrorHandler((err, res) => {
      log.error({ err, ...progress(), started: res.headersSent }, `${what} failed`);
      if (res.headersSent) return res.destroy?.();
      (res as unknown as Response)
        .status(500)
        .set('Content-Type', 'application/json; charset=utf-8')
        .send(JSON.stringify(errorBody('internal_error', 'An unexpected error occurred.')));
    });
}
