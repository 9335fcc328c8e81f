import { Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerRequest, type ThrottlerStorage } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { RateLimitExceeded } from '../errors.js';
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
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async getTracker(req: Request): Promise<string> {
    return req.caller ? `client:${req.caller.clientId}` : `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
  }

  protected override async handleRequest({ context, limit, ttl, throttler, getTracker, generateKey }: ThrottlerRequest): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const tracker = await getTracker(req, context);
    const name = throttler.name ?? 'default';
    const { totalHits, timeToExpire, isBlocked } = await this.storageService.increment(generateKey(context, tracker, name), ttl, limit, ttl, name);
    res.setHeader('RateLimit-Policy', `"${name}";q=${limit};w=${Math.round(ttl / 1000)}`);
    res.setHeader('RateLimit', `"${name}";r=${Math.max(0, limit - totalHits)};t=${timeToExpire}`);
    if (isBlocked) throw new RateLimitExceeded(limit, timeToExpire);
    return true;
  }

  /** One counter per client for the whole API, not one per route. */
  protected override generateKey(_context: unknown, tracker: string, name: string): string {
    return `${name}:${tracker}`;
  }
}
