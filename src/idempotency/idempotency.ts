import { createHash } from 'node:crypto';
import { type CallHandler, createParamDecorator, type ExecutionContext, Inject, Injectable, type NestInterceptor, Optional, UseInterceptors, applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { InjectRepository } from '@nestjs/typeorm';
import type { Request, Response } from 'express';
import { from, type Observable, of, switchMap } from 'rxjs';
import { LessThan, type EntityManager, type Repository } from 'typeorm';
import { isUniqueViolation } from '../database/errors.js';
import { TransactionRunner } from '../database/transactions.js';
import { Conflict, DomainError, ValidationFailed } from '../errors.js';
import { ApiFailures } from '../http/openapi-decorators.js';
import { UnitOfWork } from '../http/unit-of-work.js';
import { IdempotencyRecord } from './idempotency.entity.js';
import { decodeStored, encodeStored, OMITTED_HEADER, omittedAnswer, STORED_ANSWER_LIMIT_BYTES, type Stored } from './stored-answer.js';

/** Injection token: the stored-answer limit in bytes, when not STORED_ANSWER_LIMIT_BYTES (tests make answers over a small one). */
export const STORED_ANSWER_LIMIT = Symbol('STORED_ANSWER_LIMIT');

const KEEP_MS = 24 * 3600 * 1000;
/** A pending record this old belongs to a request that died before committing: its key may be used again. */
const ABANDONED_MS = 60 * 1000;

export interface IdempotencyContext {
  clientId: string;
  key: string;
  keyHash: string;
  requestHash: string;
  /** When this request claimed the key (`begin`): its claim, which only it may complete or free. */
  claimed?: Date;
}

declare module 'express-serve-static-core' {
  interface Request {
    idempotency?: IdempotencyContext;
  }
}

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
    @InjectRepository(IdempotencyRecord) private readonly records: Repository<IdempotencyRecord>,
    private readonly tx: TransactionRunner,
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
        // Claims are writes of their own, before the request's unit of work begins (TransactionRunner.alone).
        await this.tx.alone((m) => m.insert(IdempotencyRecord, { clientId: ctx.clientId, keyHash: ctx.keyHash, requestHash: ctx.requestHash, state: 'pending', status: null, body: null, created: now }));
        ctx.claimed = now;
        return null;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const found = await this.records.findOneBy({ clientId: ctx.clientId, keyHash: ctx.keyHash });
      if (!found) continue;
      const age = now.getTime() - found.created.getTime();
      const stale = age > KEEP_MS || (found.state === 'pending' && age > ABANDONED_MS);
      if (stale) {
        await this.tx.alone((m) => m.delete(IdempotencyRecord, { clientId: ctx.clientId, keyHash: ctx.keyHash, created: found.created }));
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
  async complete(m: EntityManager, ctx: IdempotencyContext, stored: Stored): Promise<void> {
    if (!ctx.claimed) throw new Error('complete() without a claim of this request');
    const body = await encodeStored(stored, this.limit);
    // Only this request's own claim: one left pending past ABANDONED_MS may have been taken over by a retry of the
    // same request, which does the work itself; then this change must not commit too (the unit rolls it back).
    const result = await m.update(IdempotencyRecord, { clientId: ctx.clientId, keyHash: ctx.keyHash, state: 'pending', created: ctx.claimed }, { state: 'done', status: stored.status, body });
    if (result.affected !== 1) throw new IdempotentRequestInFlight();
  }

  /** The work failed: free the key (this request's claim only) so that the client can try again. */
  async release(ctx: IdempotencyContext): Promise<void> {
    if (!ctx.claimed) return;
    await this.tx.alone((m) => m.delete(IdempotencyRecord, { clientId: ctx.clientId, keyHash: ctx.keyHash, state: 'pending', created: ctx.claimed }));
  }

  /** Forgets records older than 24 hours (called now and then). */
  async purge(): Promise<void> {
    await this.tx.alone((m) => m.delete(IdempotencyRecord, { created: LessThan(new Date(Date.now() - KEEP_MS)) }));
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
export class IdempotencyInterceptor implements NestInterceptor {
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
        unit.beforeCommit.push((m, body) => {
          const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (res.hasHeader(name) ? [[name, String(res.getHeader(name))]] : [])));
          return this.idempotency.complete(m, ctx, { status: res.statusCode, body, headers });
        });
        unit.afterRollback.push(() => this.idempotency.release(ctx));
        return next.handle();
      }),
    );
  }
}

/** The Idempotency-Key the request was sent with, once claimed (null without one): the ledger keeps it to trace a change to its request. */
export const RequestKey = createParamDecorator((_: unknown, context: ExecutionContext): string | null => context.switchToHttp().getRequest<Request>().idempotency?.key ?? null);

/** Marks a POST that honours the Idempotency-Key header; it is a unit of work, which stores the answer with the change. */
export const Idempotent = () =>
  applyDecorators(
    UnitOfWork(),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Up to 255 characters; a retry with the same key and body within 24 h replays the first response (`Idempotent-Replayed: true`). ' +
        'An answer too large to store (over 8 MiB even compressed) is replayed with its status and the short body `{message, answerBytes}`, marked `Idempotent-Answer-Omitted: true`',
    }),
    ApiFailures(
      {
        validation_error: 'an Idempotency-Key that is empty, over 255 characters or holds control characters',
        conflict: 'a request with this Idempotency-Key is still in progress',
        idempotency_key_reused: 'this Idempotency-Key was used with another request body',
      },
      'idempotency',
    ),
  );

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
