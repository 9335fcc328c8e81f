import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/config.js';
import { ValidationFailed } from '../errors.js';
import type { Direction, PageRequest } from './page-request.js';

/** Which way a cursor seeks from its boundary row: the rows after it (`next`) or before it (`prev`). */
export type Way = 'after' | 'before';

/**
 * The position a cursor stands for: the page it leads to, and the sort value
 * and primary key of the row it starts after or before; that row included
 * when `inclusive` (the neighbour of an empty page, whose boundary is the row
 * its own cursor named).
 */
export interface CursorPosition {
  page: number;
  way: Way;
  value: unknown;
  key: unknown;
  inclusive?: boolean;
}

/** What a cursor belongs to: a list with its scope and filters, and the order and page size it was made for. */
export interface CursorContext {
  sort: string;
  direction: Direction;
  pageSize: number;
  /** The list and everything that narrows it (scope, itemID, modifiedSince), compared as a digest. */
  filters: unknown[];
}

/** What a cursor of this request must belong to. */
export function cursorContext(request: PageRequest, filters: unknown[] = []): CursorContext {
  const [[sort, direction]] = request.order;
  return { sort, direction, pageSize: request.pageSize, filters: [...filters, request.modifiedSince?.toISOString() ?? null] };
}

/** The cursor's JSON: version, page, way (and whether the boundary row is included), boundary values, sort, direction, page size, filter digest. */
interface Payload {
  v: 1;
  p: number;
  w: 'a' | 'b';
  i?: 1;
  k: [Value, Value];
  s: string;
  d: Direction;
  z: number;
  f: string;
}
/** A boundary value: text and numbers as read from the database, datetimes tagged. */
type Value = string | number | { t: string };

const MAX_LENGTH = 2048;
const MAC_BYTES = 16;
const INVALID = 'cursor is not valid: send it as the next or prev link of a page gave it';

/**
 * Makes and reads the `cursor` of the Link header's next and prev: base64url
 * JSON of the position and what it belongs to, and an HMAC (SHA-256, 128
 * bits) under a key derived from LIST_CURSOR_SECRET. A cursor carries no
 * right: the caller's scope and filters are applied by the query whatever it
 * says; the MAC makes a damaged or edited cursor an error rather than a
 * different position, and the context check one made for another list, sort,
 * direction, filter or page size.
 */
@Injectable()
export class PageCursors {
  /** A KeyObject made once: createHmac with a Buffer key makes one on every call, at about 5 × the cost of the MAC itself. */
  private readonly key: KeyObject;

  constructor(config: AppConfig) {
    this.key = createSecretKey(createHash('sha256').update('inventory list cursor\0').update(config.listCursorSecret).digest());
  }

  encode(context: CursorContext, at: CursorPosition): string {
    const payload: Payload = {
      v: 1,
      p: at.page,
      w: at.way === 'after' ? 'a' : 'b',
      ...(at.inclusive ? { i: 1 as const } : {}),
      k: [toValue(at.value), toValue(at.key)],
      s: context.sort,
      d: context.direction,
      z: context.pageSize,
      f: digest(context.filters),
    };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The position of a cursor made for this context; anything else is a validation_error on `cursor`. */
  decode(token: string, context: CursorContext, page?: number): CursorPosition {
    const payload = this.verified(token);
    const other = [
      payload.s !== context.sort && 'sort',
      payload.d !== context.direction && 'direction',
      payload.z !== context.pageSize && 'pageSize',
      payload.f !== digest(context.filters) && 'list, warehouse scope or filter',
    ].filter(Boolean);
    if (other.length) refuse(`cursor was made for another ${other.join(', ')}: follow the links with the parameters they carry`);
    if (page !== undefined && page !== payload.p) refuse(`cursor leads to page ${payload.p}: send it with that page or without page`);
    return { page: payload.p, way: payload.w === 'a' ? 'after' : 'before', value: fromValue(payload.k[0]), key: fromValue(payload.k[1]), inclusive: payload.i === 1 };
  }

  private verified(token: string): Payload {
    const match = token.length <= MAX_LENGTH ? /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(token) : null;
    if (!match) refuse(INVALID);
    const sent = Buffer.from(match[2], 'base64url');
    // The canonical spelling only: base64url ignores the last character's low bits, and a changed cursor must never pass.
    if (sent.length !== MAC_BYTES || sent.toString('base64url') !== match[2] || !timingSafeEqual(sent, this.mac(match[1]))) refuse(INVALID);
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8'));
    } catch {
      refuse(INVALID);
    }
    // Signed by this service, so well formed; checked anyway, so that no key change or bug can reach a query with a bad value.
    if (!isPayload(payload)) refuse(INVALID);
    return payload;
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, MAC_BYTES);
  }
}

function refuse(message: string): never {
  throw new ValidationFailed({ cursor: [message] });
}

function digest(filters: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 22);
}

function toValue(value: unknown): Value {
  if (value instanceof Date) return { t: value.toISOString() };
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  // A driver answering a Buffer for text (a binary collation) or anything else: its text.
  return String(value);
}

function fromValue(value: Value): unknown {
  return typeof value === 'object' ? new Date(value.t) : value;
}

function isValue(v: unknown): v is Value {
  if (typeof v === 'string') return v.length <= 1000;
  if (typeof v === 'number') return Number.isFinite(v);
  return typeof v === 'object' && v !== null && typeof (v as { t?: unknown }).t === 'string' && !Number.isNaN(Date.parse((v as { t: string }).t));
}

function isPayload(p: unknown): p is Payload {
  const x = p as Payload;
  return (
    typeof p === 'object' && p !== null && x.v === 1 &&
    Number.isSafeInteger(x.p) && x.p >= 1 &&
    (x.w === 'a' || x.w === 'b') &&
    (x.i === undefined || x.i === 1) &&
    Array.isArray(x.k) && x.k.length === 2 && isValue(x.k[0]) && isValue(x.k[1]) &&
    typeof x.s === 'string' && (x.d === 'ASC' || x.d === 'DESC') &&
    Number.isSafeInteger(x.z) && x.z >= 1 && typeof x.f === 'string'
  );
}
