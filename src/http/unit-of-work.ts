import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  type OnModuleInit,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import type { Request } from 'express';
import { from, lastValueFrom, type Observable } from 'rxjs';
import type { TransactionContext } from '../database/transaction-context.js';
import { TransactionRunner } from '../database/transactions.js';
import { DeclaredRoutes, READ_METHODS } from './routes.js';

/** A write the request's own transaction must carry besides the change: it gets the transaction's context and the answer the route returned. */
export type BeforeCommit = (tx: TransactionContext, answer: unknown) => Promise<void>;

/** The unit of work of a write request, as the HTTP edge sees it. */
export interface RequestUnitOfWork {
  /** Steps written, in order, in the change's transaction right before it commits. */
  beforeCommit: BeforeCommit[];
  /** Run once the unit has failed and everything it wrote is rolled back (a claimed Idempotency-Key is freed). */
  afterRollback: Array<() => Promise<void>>;
}

declare module 'express-serve-static-core' {
  interface Request {
    unitOfWork?: RequestUnitOfWork;
  }
}

const UNIT_OF_WORK = 'http:unit-of-work';

/**
 * Every write request is one unit of work (TransactionRunner.unit), run
 * again as a whole after a transient failure (a deadlock, a Galera
 * certification failure at COMMIT, a lock wait timeout) for as long as the
 * retry budget allows (TransactionRunner.retrying): everything the failed
 * attempt wrote was rolled back and its claimed Idempotency-Key freed, so the
 * next attempt starts from nothing, reads anew and decides anew. The
 * transaction its service begins is the one that the request's other writes
 * join (the services' outbox events, the stored Idempotency-Key answer), and
 * it commits only once the route has produced its answer, before that answer
 * is sent. Services know nothing of it: they call `TransactionRunner.run` as
 * they would anywhere (the admin CLI runs the same services outside a unit).
 *
 * Every route but GET, HEAD and OPTIONS must carry it (`@Idempotent()`
 * includes it): `UnitOfWorkCheck` refuses to start a service with a write
 * route that lacks it. Reads carry nothing and never begin a transaction.
 */
export const UnitOfWork = () => applyDecorators(SetMetadata(UNIT_OF_WORK, true), UseInterceptors(UnitOfWorkInterceptor));

@Injectable()
export class UnitOfWorkInterceptor implements NestInterceptor {
  constructor(private readonly tx: TransactionRunner) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    // Declared twice (`@UnitOfWork()` beside `@Idempotent()`): the outer one is the unit.
    if (req.unitOfWork) return next.handle();
    // One attempt: a fresh unit, and the route (with the interceptors inside this one, e.g. the
    // Idempotency-Key's claim) called anew: each subscription to `handle()` calls it again, inside
    // the unit (Nest binds it to the async context of `handle()`).
    const attempt = async () => {
      const unit: RequestUnitOfWork = { beforeCommit: [], afterRollback: [] };
      req.unitOfWork = unit;
      try {
        return await this.tx.unit(() => lastValueFrom(next.handle(), { defaultValue: undefined }), unit.beforeCommit);
      } catch (error) {
        for (const step of unit.afterRollback) await step().catch(() => undefined);
        throw error;
      }
    };
    return from(this.tx.retrying(attempt));
  }
}

/** At start-up: a write route without `@UnitOfWork()` would write outside its request's unit, so the service does not start. */
@Injectable()
export class UnitOfWorkCheck implements OnModuleInit {
  constructor(private readonly routes: DeclaredRoutes) {}

  onModuleInit(): void {
    const missing = this.routes.lacking(UNIT_OF_WORK, (r) => !READ_METHODS.has(r.method));
    if (missing.length) throw new Error(`Write routes without @UnitOfWork(): ${missing.join(', ')}`);
  }
}
