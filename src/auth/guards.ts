import { applyDecorators, type CanActivate, createParamDecorator, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiExtension, ApiOperation } from '@nestjs/swagger';
import { ApiFailures } from '../http/openapi-decorators.js';
import { PUBLIC_ROUTE } from '../http/route-access.js';
import type { Request } from 'express';
import { AccessService, Unauthenticated } from './access.service.js';
import { Caller, FORBIDDEN, Forbidden } from './caller.js';
import { isWrite, SECURITY_ID_NAMES, type SecurityId } from './security-id.js';

declare module 'express-serve-static-core' {
  interface Request {
    caller?: Caller;
    /** Why a bearer token that was sent did not authenticate. */
    authProblem?: 'invalid' | 'expired';
  }
}

const PERMISSION = 'auth:permission';

/**
 * The one decorator that says who may call a route: the SecurityID it needs
 * (a write unless it is Item Master List, so read-only accounts are refused),
 * or several of which any one will do (Count: 95 or 88; the service then
 * checks the one its change needs), shown in OpenAPI as the bearer scheme, an
 * `x-security-id`, the description and the failures every such route can
 * answer (401, 403, 429, 503).
 */
export function RequirePermission(permission: SecurityId | readonly SecurityId[], summary: string) {
  const anyOf = typeof permission === 'number' ? [permission] : [...permission];
  const kind = anyOf.some(isWrite) ? 'a write: read-only accounts are refused' : 'a read';
  const names = anyOf.map((id) => `${id} (${SECURITY_ID_NAMES[id]})`).join(' or ');
  return applyDecorators(
    SetMetadata(PERMISSION, anyOf),
    ApiOperation({ summary, description: `Requires SecurityID ${names}; ${kind}.` }),
    ApiExtension('x-security-id', anyOf.length === 1 ? anyOf[0] : anyOf),
    ApiBearerAuth(),
    ApiFailures(
      {
        unauthorized: 'no bearer token, or an invalid or expired one (WWW-Authenticate: Bearer)',
        forbidden: anyOf.some(isWrite) ? `"${FORBIDDEN.readOnly}" (a read-only account); "${FORBIDDEN.permission}"` : `"${FORBIDDEN.permission}"`,
        rate_limited: 'over the rate limit (Retry-After: seconds)',
        service_unavailable: 'the database connection was lost under the request (Retry-After: 1 when a retry is safe)',
      },
      'access',
    ),
  );
}

/** The authenticated caller of the request. */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const caller = ctx.switchToHttp().getRequest<Request>().caller;
  if (!caller) throw new Unauthenticated('missing');
  return caller;
});

/** First guard: who is calling? Never refuses by itself, so the rate limit can count every request. */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(private readonly access: AccessService) {}

  /** From the caches without a promise when they know the token and its account. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match) return true;
    const known = this.access.authenticateCached(match[1]);
    if (known !== undefined) return identify(req, known);
    return this.access.authenticate(match[1]).then((result) => identify(req, result));
  }
}

function identify(req: Request, result: Caller | 'invalid' | 'expired'): true {
  if (result instanceof Caller) {
    req.caller = result;
    req.context.clientId = result.clientId;
  } else {
    req.authProblem = result;
  }
  return true;
}

/**
 * Last guard, in DECISIONS "Errors" order: 401 without a valid token, then
 * 403 read-only for writes, then 403 for a missing SecurityID. Body validation
 * and warehouse scope come after, in the pipes and the services.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  /** What each route declares, read once per route. */
  private readonly declared = new WeakMap<object, { isPublic: boolean; anyOf: SecurityId[] | undefined }>();

  canActivate(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let route = this.declared.get(handler);
    if (!route) {
      const targets = [handler, context.getClass()];
      route = { isPublic: this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets) === true, anyOf: this.reflector.getAllAndOverride<SecurityId[] | undefined>(PERMISSION, targets) };
      this.declared.set(handler, route);
    }
    if (route.isPublic) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const caller = req.caller;
    if (!caller) throw new Unauthenticated(req.authProblem ?? 'missing');
    const anyOf = route.anyOf;
    // Fails closed: a route that forgot to say what it needs is refused.
    if (anyOf === undefined) throw new Forbidden(FORBIDDEN.permission);
    if (anyOf.some(isWrite) && caller.readOnly) throw new Forbidden(FORBIDDEN.readOnly);
    if (!anyOf.some((id) => caller.can(id))) throw new Forbidden(FORBIDDEN.permission);
    return true;
  }
}
