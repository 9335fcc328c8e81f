import { applyDecorators, type CallHandler, createParamDecorator, type ExecutionContext, Injectable, type NestInterceptor, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { ApiFailures } from './openapi-decorators.js';
import { UnitOfWork } from './unit-of-work.js';

/*
 * A route that honours the Idempotency-Key header, as the kernel knows it:
 * the decorator its controller carries, the key it may pass on, and the
 * interceptor it names, whose work IdempotencyModule provides
 * (IdempotencyKeys; src/idempotency/idempotency.ts). A feature's routes use
 * them without importing that module's files.
 */

/** What the Idempotency-Key handling knows of a keyed request. */
export interface IdempotencyContext {
  clientId: string;
  key: string;
  keyHash: string;
  requestHash: string;
  /** When this request claimed the key: its claim, which only it may complete or free. */
  claimed?: Date;
}

declare module 'express-serve-static-core' {
  interface Request {
    idempotency?: IdempotencyContext;
  }
}

/** The work of a keyed route's interceptor: claims the key or replays the stored answer (IdempotencyModule provides it). */
export abstract class IdempotencyKeys implements NestInterceptor {
  abstract intercept(context: ExecutionContext, next: CallHandler): Observable<unknown>;
}

/** The interceptor `@Idempotent()` names: the IdempotencyKeys of the module (which imports IdempotencyModule). */
@Injectable()
export class IdempotentRoute implements NestInterceptor {
  constructor(private readonly keys: IdempotencyKeys) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return this.keys.intercept(context, next);
  }
}

/** The Idempotency-Key the request was sent with, once claimed (null without one): the ledger keeps it to trace a change to its request. */
export const RequestKey = createParamDecorator((_: unknown, context: ExecutionContext): string | null => context.switchToHttp().getRequest<Request>().idempotency?.key ?? null);

/** Marks a POST that honours the Idempotency-Key header; it is a unit of work, which stores the answer with the change. */
export const Idempotent = () =>
  applyDecorators(
    UnitOfWork(),
    UseInterceptors(IdempotentRoute),
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
