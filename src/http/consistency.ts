import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Consistency } from '../database/list-reads.js';
import { ValidationFailed } from '../errors.js';
import { ApiFailures } from './openapi-decorators.js';

/**
 * The `Consistency` request header of a list (EXTENSIONS "Operating it"):
 * `strong` reads the primary, so the answer reflects every write committed
 * before it; `eventual`, the default, may read the replica (DATABASE_READ_URL).
 * Either in any case. Anything else is a validation_error, so that a typo
 * (`Consistency: strng`) never silently reads stale data.
 */
export function parseConsistency(raw: string | string[] | undefined): Consistency {
  if (raw === undefined) return 'eventual';
  const value = (Array.isArray(raw) ? raw.join(', ') : raw).trim().toLowerCase();
  if (value === 'strong' || value === 'eventual') return value;
  throw new ValidationFailed({ Consistency: ['Consistency must be strong or eventual'] });
}

/** The parameter of a list handler: the request's consistency, checked. */
export const ReadConsistency = createParamDecorator((_: unknown, context: ExecutionContext): Consistency =>
  parseConsistency(context.switchToHttp().getRequest<Request>().headers.consistency),
);

/** Documents the `Consistency` header on a list route (which takes `@ReadConsistency()`). */
export const ListRead = () =>
  applyDecorators(
    ApiHeader({
      name: 'Consistency',
      required: false,
      description: 'strong: read from the primary database, reflecting every write committed before the request. eventual (default): may read from a replica, behind by its replication lag.',
      schema: { type: 'string', enum: ['strong', 'eventual'], default: 'eventual' },
    }),
    ApiFailures({ validation_error: 'a Consistency header other than strong or eventual' }, 'consistency'),
  );
