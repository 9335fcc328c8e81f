import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import { lastValueFrom, Observable } from 'rxjs';
import { bindInAsyncScope, installAsyncBind } from './async-bind.js';

describe('bindInAsyncScope (AsyncResource.bind without the deprecated accessor)', () => {
  const storage = new AsyncLocalStorage<string>();

  it('runs the function in the async context it was bound in, not the one it is called in', async () => {
    const bound = storage.run('at bind', () => bindInAsyncScope(() => storage.getStore()));
    expect(storage.run('at call', () => bound())).toBe('at bind');
    // Later, from a timer that knows no store at all.
    await expect(new Promise((resolve) => setTimeout(() => resolve(bound()), 1))).resolves.toBe('at bind');
    // Unbound, the same function sees the caller's store: the binding is what carries it.
    expect(storage.run('at call', () => storage.getStore())).toBe('at call');
  });

  it('passes the arguments and the return value through, and this as Node does', () => {
    const add = bindInAsyncScope((a: number, b: number) => a + b);
    expect(add(2, 3)).toBe(5);
    function who(this: unknown, suffix: string) {
      return `${(this as { name?: string } | undefined)?.name ?? 'nobody'}${suffix}`;
    }
    // No thisArg: the caller's this.
    const callerThis = bindInAsyncScope(who);
    expect(callerThis.call({ name: 'caller' }, '!')).toBe('caller!');
    // A thisArg wins over the caller's.
    const fixedThis = bindInAsyncScope(who, 'who', { name: 'fixed' });
    expect(fixedThis.call({ name: 'caller' }, '?')).toBe('fixed?');
  });

  it('passes errors through', () => {
    const fails = bindInAsyncScope(() => {
      throw new Error('boom');
    });
    expect(() => fails()).toThrow('boom');
  });

  it("is what AsyncResource.bind is once installed, and keeps a store across NestJS's interceptor chain", async () => {
    installAsyncBind();
    expect(AsyncResource.bind).toBe(bindInAsyncScope);
    expect(Object.keys(AsyncResource.bind(() => undefined))).not.toContain('asyncResource');

    // Two interceptors around a route, the way Nest runs them (InterceptorsConsumer, which calls
    // AsyncResource.bind for each handle()): the outer one sets a store, the route must see it.
    const outer: NestInterceptor = {
      intercept: (_context: ExecutionContext, next: CallHandler): Observable<unknown> =>
        new Observable((subscriber) => {
          storage.run('unit', () => next.handle().subscribe(subscriber));
        }),
    };
    const inner: NestInterceptor = { intercept: (_context, next) => next.handle() };
    const route = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return storage.getStore();
    };
    const consumer = new InterceptorsConsumer();
    const result = await consumer.intercept([outer, inner], [{}, {}, () => undefined], {}, () => undefined, route, 'http');
    await expect(lastValueFrom(result as Observable<unknown>)).resolves.toBe('unit');
  });
});
