import { applyDecorators, SetMetadata } from '@nestjs/common';

/*
 * How a route opts out of the service's access rules, as its decorators
 * declare it. The marks are the kernel's, so that a route of any layer can
 * carry them (/metrics, /health, POST /Token); auth's guards read them
 * (AccessGuard: `PUBLIC_ROUTE`; RateLimitGuard: `UNMETERED_ROUTE`).
 */

/** Metadata of a route that needs no bearer token. */
export const PUBLIC_ROUTE = 'auth:public';
/** Metadata of a route that no rate limit counts. */
export const UNMETERED_ROUTE = 'rate-limit:unmetered';

/** Opts a route out of the bearer token (POST /Token, /health). Everything else is secure by default. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** Not counted against any rate limit (/health). */
export const NotRateLimited = () => SetMetadata(UNMETERED_ROUTE, true);

/** A public route that is not rate limited either (/health, /metrics). */
export const Unmetered = () => applyDecorators(Public(), NotRateLimited());
