import { AsyncResource } from 'node:async_hooks';

/**
 * `AsyncResource.bind` as Node defines it, less the deprecated (DEP0172)
 * `asyncResource` accessor on the bound function: `fn`, run in the async
 * context in which it was bound (an AsyncLocalStorage's store, the unit of
 * work's among them), with the arguments it is called with, and `thisArg`
 * as `this` when given, else the caller's `this`.
 *
 * Why: NestJS binds each interceptor's `handle()` with `AsyncResource.bind`,
 * once per interceptor and once more for the route, on every request (a
 * Receive: three times; a list page: twice). On Node 20 each call defines
 * that accessor with two fresh `util.deprecate` wrappers, and each wrapper
 * takes a fresh function as its prototype: about 21 µs a call, more than the
 * rest of a route's interceptors together (docs/quality.md, "Interceptors and
 * AsyncResource.bind"). The resource is made the same way, in the same
 * context, so what the bound function sees is unchanged.
 */
export function bindInAsyncScope<Func extends (this: ThisArg, ...args: any[]) => any, ThisArg>(fn: Func, type?: string, thisArg?: ThisArg): Func {
  const resource = new AsyncResource(type || fn.name || 'bound-anonymous-fn');
  if (thisArg !== undefined) return ((...args: unknown[]) => resource.runInAsyncScope(fn, thisArg, ...args)) as Func;
  return function (this: ThisArg, ...args: unknown[]) {
    return resource.runInAsyncScope(fn, this, ...args);
  } as Func;
}

/**
 * Makes `AsyncResource.bind` the one above for the whole process (idempotent).
 * `createApp` calls it before the application is built, so the service and
 * the tests' applications both run with it.
 */
export function installAsyncBind(): void {
  AsyncResource.bind = bindInAsyncScope;
}
