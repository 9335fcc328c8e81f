import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The answer a key replays: status, body and the headers a replay repeats. */
export interface Stored {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** Set instead of `body` when the answer was too large to store: the size of the whole stored JSON, in bytes. */
  omittedBytes?: number;
}

/**
 * The most a stored answer may take in its column, on every database alike
 * (DECISIONS "Idempotency-Key"): 8 MiB of text. MySQL/MariaDB's MEDIUMTEXT
 * holds 16 MiB, but the statement that writes it must also fit the server's
 * `max_allowed_packet` (16 MiB by default on MariaDB 10.11), and the driver
 * sends the value escaped, which can double JSON; compressed answers are
 * base64, which needs no escaping. Past the limit the answer is refused by
 * the server (a 503 and then a 500 on MariaDB, seen before this limit), so
 * the key stores a marker instead (`omittedBytes`) and nothing is refused.
 */
export const STORED_ANSWER_LIMIT_BYTES = 8 * 1024 * 1024;

/** Answers up to this size are stored as plain JSON; larger ones gzip-compressed (lot lists shrink some tenfold). */
const COMPRESS_FROM_BYTES = 64 * 1024;

/** Marks compressed text; plain stored JSON always begins with `{`. */
const GZIP_PREFIX = 'gz:';

/**
 * The column text of an answer: JSON, compressed when large; a marker with
 * the status, headers and size when even compressed it passes `limit`.
 */
export async function encodeStored(stored: Stored, limit: number): Promise<string> {
  const json = JSON.stringify(stored);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= COMPRESS_FROM_BYTES && bytes <= limit) return json;
  const compressed = `${GZIP_PREFIX}${(await gzipAsync(json)).toString('base64')}`;
  if (compressed.length <= limit) return compressed;
  return JSON.stringify({ status: stored.status, body: null, headers: stored.headers, omittedBytes: bytes });
}

export async function decodeStored(text: string): Promise<Stored> {
  if (!text.startsWith(GZIP_PREFIX)) return JSON.parse(text) as Stored;
  return JSON.parse((await gunzipAsync(Buffer.from(text.slice(GZIP_PREFIX.length), 'base64'))).toString('utf8')) as Stored;
}

/** Response header of a replay whose first answer was too large to store. */
export const OMITTED_HEADER = 'Idempotent-Answer-Omitted';

/** The body a replay answers in place of an answer too large to store (docs/api.md "Idempotency-Key"). */
export function omittedAnswer(bytes: number): { message: string; answerBytes: number } {
  return {
    message:
      'The first answer to this Idempotency-Key was too large to store, so it cannot be replayed; the change it reported was made once and is not made again. Read the stock levels, lots or transactions for its effects.',
    answerBytes: bytes,
  };
}
