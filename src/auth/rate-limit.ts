import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, type ThrottlerModuleOptions, type ThrottlerStorage } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { RateLimitExceeded } from '../errors.js';
import { UNMETERED_ROUTE } from '../http/route-access.js';
import type { RedisLink } from '../redis/redis-link.js';


interface WindowCount {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/** Fixed one-window counters in this process (no REDIS_URL). */
export class MemoryRateLimitStore implements ThrottlerStorage {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();

  async increment(key: string, ttlMs: number, limit: number): Promise<WindowCount> {
    return this.count(key, ttlMs, limit);
  }

  /** The same, answered at once: the guard needs no promise for it. */
  count(key: string, ttlMs: number, limit: number): WindowCount {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size > 100_000) this.sweep(now);
      window = { hits: 0, resetAt: now + ttlMs };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return count(window.hits, window.resetAt - now, limit);
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}

// INCR and, on the first hit of a window, PEXPIRE: one atomic step, so every instance shares one count.
const INCREMENT = `local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return {hits, ttl}`;

/**
 * Fixed one-window counters in Redis (REDIS_URL), shared by every instance of
 * the deployment (keys start with REDIS_KEY_PREFIX). While Redis is down or
 * slow, this instance counts in process with the same limit (DECISIONS "Rate
 * limit"), and goes back to the shared count once Redis answers again.
 */
export class SharedRateLimitStore implements ThrottlerStorage {
  private readonly fallback = new MemoryRateLimitStore();

  constructor(
    private readonly redis: RedisLink,
    private readonly keyPrefix: string,
  ) {}

  async increment(key: string, ttlMs: number, limit: number): Promise<WindowCount> {
    const shared = await this.redis.attempt((r) => r.eval(INCREMENT, 1, `${this.keyPrefix}:rl:${key}`, String(ttlMs)) as Promise<[number, number]>);
    if (!shared) return this.fallback.increment(key, ttlMs, limit);
    const [hits, pttl] = shared.value;
    return count(hits, pttl, limit);
  }
}

function count(hits: number, msLeft: number, limit: number): WindowCount {
  const seconds = Math.max(1, Math.ceil(msLeft / 1000));
  const isBlocked = hits > limit;
  return { totalHits: hits, timeToExpire: seconds, isBlocked, timeToBlockExpire: isBlocked ? seconds : 0 };
}

/**
 * 100 requests a minute (RATE_LIMIT_PER_MINUTE) per client: keyed by the
 * token's client when the request carries a valid one, else by remote address
 * (POST /Token included). Runs after the bearer guard has identified the caller.
 * Sets the IETF draft headers `RateLimit-Policy` and `RateLimit`.
 *
 * One fixed window (ThrottlerModule's options and store); with the store in
 * process the guard answers without a promise, and a route's "unmetered" mark
 * is looked up once per route.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly name: string;
  private readonly ttlMs: number;
  private readonly limit: number;
  private readonly unmetered = new WeakMap<object, boolean>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly store: ThrottlerStorage,
    private readonly reflector: Reflector,
  ) {
    const [window] = Array.isArray(options) ? options : options.throttlers;
    this.name = window.name ?? 'default';
    this.ttlMs = window.ttl as number;
    this.limit = window.limit as number;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const handler = context.getHandler();
    let skip = this.unmetered.get(handler);
    if (skip === undefined) this.unmetered.set(handler, (skip = this.reflector.getAllAndOverride<boolean>(UNMETERED_ROUTE, [handler, context.getClass()]) === true));
    if (skip) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    // One counter per client for the whole API, not one per route.
    const key = `${this.name}:${req.caller ? `client:${req.caller.clientId}` : `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`}`;
    if (this.store instanceof MemoryRateLimitStore) return this.answer(res, this.store.count(key, this.ttlMs, this.limit));
    return this.store.increment(key, this.ttlMs, this.limit, this.ttlMs, this.name).then((counted) => this.answer(res, counted));
  }

  private answer(res: Response, { totalHits, timeToExpire, isBlocked }: WindowCount): boolean {
    res.setHeader('RateLimit-Policy', `"${this.name}";q=${this.limit};w=${Math.round(this.ttlMs / 1000)}`);
    res.setHeader('RateLimit', `"${this.name}";r=${Math.max(0, this.limit - totalHits)};t=${timeToExpire}`);
    if (isBlocked) throw new RateLimitExceeded(this.limit, timeToExpire);
    return true;
  }
}
