import { createHash } from 'node:crypto';
import { type CallHandler, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, type Observable, of, switchMap } from 'rxjs';
import { isUniqueViolation } from '../database/errors.js';
import type { TransactionContext } from '../database/transaction-context.js';
import { Conflict, DomainError, ValidationFailed } from '../errors.js';
import { type IdempotencyContext, IdempotencyKeys } from '../http/idempotent.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { decodeStored, encodeStored, OMITTED_HEADER, omittedAnswer, STORED_ANSWER_LIMIT_BYTES, type Stored } from './stored-answer.js';

/** Injection token: the stored-answer limit in bytes, when not STORED_ANSWER_LIMIT_BYTES (tests make answers over a small one). */
export const STORED_ANSWER_LIMIT = Symbol('STORED_ANSWER_LIMIT');

const KEEP_MS = 24 * 3600 * 1000;
/** A pending record this old belongs to a request that died before committing: its key may be used again. */
const ABANDONED_MS = 60 * 1000;

export class IdempotencyKeyReused extends DomainError {
  constructor() {
    super('idempotency_key_reused', 'This Idempotency-Key was used with another request body.');
  }
}

/** Seconds a client is asked to wait before sending the key again: most requests finish well within it. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;

export class IdempotentRequestInFlight extends Conflict {
  constructor() {
    super('A request with this Idempotency-Key is still in progress.', { reason: 'request_in_progress' }, IN_FLIGHT_RETRY_AFTER_SECONDS);
  }
}

/**
 * DECISIONS "Inventory": the same client sending the same Idempotency-Key and
 * body within 24 hours gets the stored response again and nothing is done
 * twice. The record is claimed before the work and completed inside the work's
 * own transaction (the request's unit of work), so a stored response exists
 * exactly when the change committed.
 */
@Injectable()
export class IdempotencyService {
  private readonly limit: number;

  constructor(
    private readonly records: IdempotencyRepository,
    @Optional() @Inject(STORED_ANSWER_LIMIT) limit?: number,
  ) {
    this.limit = limit ?? STORED_ANSWER_LIMIT_BYTES;
  }

  /** Claims the key; returns the stored response when there is one to replay. */
  async begin(ctx: IdempotencyContext): Promise<Stored | null> {
    // Whole seconds: the column keeps no fraction on MySQL/MariaDB, and the claim is known by this time exactly.
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        // Claims are writes of their own, before the request's unit of work begins.
        await this.records.claim(ctx, ctx.requestHash, now);
        ctx.claimed = now;
        return null;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const found = await this.records.find(ctx);
      if (!found) continue;
      const age = now.getTime() - found.created.getTime();
      const stale = age > KEEP_MS || (found.state === 'pending' && age > ABANDONED_MS);
      if (stale) {
        await this.records.delete(ctx, found.created);
        continue;
      }
      if (found.requestHash !== ctx.requestHash) throw new IdempotencyKeyReused();
      if (found.state === 'pending') throw new IdempotentRequestInFlight();
      return decodeStored(found.body ?? 'null');
    }
    throw new IdempotentRequestInFlight();
  }

  /**
   * In the change's transaction: the answer to replay from now on, within
   * the limit (stored-answer.ts): compressed when large, and past the limit
   * only its status, headers and size, so that an answer too large to store
   * never fails the change it reports.
   */
  async complete(tx: TransactionContext, ctx: IdempotencyContext, stored: Stored): Promise<void> {
    if (!ctx.claimed) throw new Error('complete() without a claim of this request');
    const body = await encodeStored(stored, this.limit);
    // Only this request's own claim: one left pending past ABANDONED_MS may have been taken over by a retry of the
    // same request, which does the work itself; then this change must not commit too (the unit rolls it back).
    if (!(await this.records.complete(tx, ctx, ctx.claimed, stored.status, body))) throw new IdempotentRequestInFlight();
  }

  /** The work failed: free the key (this request's claim only) so that the client can try again. */
  async release(ctx: IdempotencyContext): Promise<void> {
    if (!ctx.claimed) return;
    await this.records.deletePending(ctx, ctx.claimed);
  }

  /** Forgets records older than 24 hours (called now and then). */
  async purge(): Promise<void> {
    await this.records.deleteOlderThan(new Date(Date.now() - KEEP_MS));
  }
}

/** Answer headers a replay repeats (a created item's Location). */
const REPLAYED_HEADERS = ['Location'];

/**
 * What a key's request is compared by: the method, the route, the path's
 * parameters when it has any (POST /Allocations/1/Pack and /2/Pack are two
 * requests), and the body as sent.
 */
function requestText(req: Request): string {
  const params = Object.keys(req.params ?? {}).length ? ` ${canonicalJson(req.params)}` : '';
  return `${req.method} ${req.route?.path ?? req.path}${params} ${canonicalJson(req.body)}`;
}

/**
 * The HTTP edge of Idempotency-Key: claims the key before the route runs,
 * replays a stored answer, and otherwise adds the answer (status, body,
 * Location) to the request's unit of work, so that it is stored in the same
 * transaction as the change. If the request fails the key is freed again.
 */
@Injectable()
export class IdempotencyInterceptor implements IdempotencyKeys {
  private calls = 0;

  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const key = req.headers['idempotency-key'];
    if (key === undefined || !req.caller) return next.handle();
    if (typeof key !== 'string' || key.length < 1 || key.length > 255 || /[\p{Cc}]/u.test(key)) {
      throw new ValidationFailed({ 'Idempotency-Key': ['Idempotency-Key must be 1 to 255 printable characters'] });
    }
    const unit = req.unitOfWork;
    if (!unit) throw new Error('An idempotent route must run inside the unit of work of its request');
    const ctx: IdempotencyContext = {
      clientId: req.caller.clientId,
      key,
      keyHash: sha256(key),
      requestHash: sha256(requestText(req)),
    };
    if (++this.calls % 1000 === 0) void this.idempotency.purge().catch(() => undefined);
    return from(this.idempotency.begin(ctx)).pipe(
      switchMap((stored) => {
        if (stored) {
          res.setHeader('Idempotent-Replayed', 'true');
          for (const [name, value] of Object.entries(stored.headers)) res.setHeader(name, value);
          if (stored.omittedBytes === undefined) return of(stored.body);
          res.setHeader(OMITTED_HEADER, 'true');
          return of(omittedAnswer(stored.omittedBytes));
        }
        req.idempotency = ctx;
        // Nest has set the route's status before the interceptors run; the route sets Location itself.
        unit.beforeCommit.push((tx, body) => {
          const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (res.hasHeader(name) ? [[name, String(res.getHeader(name))]] : [])));
          return this.idempotency.complete(tx, ctx, { status: res.statusCode, body, headers });
        });
        unit.afterRollback.push(() => this.idempotency.release(ctx));
        return next.handle();
      }),
    );
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** JSON with object keys sorted, so that key order does not make two bodies differ. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
