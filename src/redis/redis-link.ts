import { Global, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppConfig } from '../config/config.js';
import { AppLogger } from '../http/logger.js';

/** A command that has not answered by then counts as Redis being down ("a few hundred ms", DECISIONS "Rate limit"). */
export const REDIS_COMMAND_TIMEOUT_MS = 300;
/** How often Redis is pinged, up or down: an outage shows in /health, and a recovery is noticed, within about a second. */
const PING_INTERVAL_MS = 1000;
/** How long start-up waits for a first answer before serving without Redis. */
const START_WAIT_MS = 1000;
/** An outage is logged as a warning at most this often. */
const WARN_INTERVAL_MS = 60_000;

export type RedisStatus = 'up' | 'down';

/**
 * The one connection to Redis (REDIS_URL), shared by whatever keeps state
 * there, and the rule that Redis is never a single point of failure
 * (DECISIONS "Rate limit"): a command either answers within
 * REDIS_COMMAND_TIMEOUT_MS or its caller falls back to what it keeps in
 * process. After any failure the link is open (down) and no command is sent
 * at all, so nothing queues behind a dead or paused server, until a
 * background ping answers again. ioredis queues nothing either: its offline
 * queue is off, and commands caught by a broken connection are not re-sent.
 */
@Injectable()
export class RedisLink implements OnModuleInit, OnApplicationShutdown {
  private readonly redis: Redis | null;
  private up = false;
  private pinging = false;
  private closing = false;
  private lastWarning = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    config: AppConfig,
    private readonly logger: AppLogger,
  ) {
    this.redis = config.redisUrl
      ? new Redis(config.redisUrl, {
          lazyConnect: true,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          autoResendUnfulfilledCommands: false,
          commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
          connectTimeout: 1000,
          // Keeps reconnecting, at most a second apart, for as long as the process runs.
          retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
        })
      : null;
    this.redis?.on('error', (error: Error) => this.markDown(error));
    this.redis?.on('close', () => this.markDown(new Error('connection closed')));
  }

  /** Null when REDIS_URL is not set; else whether Redis answered its last command in time. */
  get status(): RedisStatus | null {
    if (!this.redis) return null;
    return this.up ? 'up' : 'down';
  }

  async onModuleInit(): Promise<void> {
    if (!this.redis) return;
    await within(this.redis.connect(), START_WAIT_MS).catch(() => undefined);
    await this.ping();
    this.timer = setInterval(() => void this.ping(), PING_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    this.redis?.disconnect();
  }

  /**
   * Runs `command` on Redis; `null` when Redis is not configured, known to be
   * down, or fails or does not answer within the timeout: the caller then uses
   * its in-process fallback. Never throws, never waits longer than the timeout.
   */
  async attempt<T>(command: (redis: Redis) => Promise<T>): Promise<{ value: T } | null> {
    if (!this.redis || !this.up) return null;
    try {
      return { value: await within(command(this.redis), REDIS_COMMAND_TIMEOUT_MS) };
    } catch (error) {
      this.markDown(error);
      return null;
    }
  }

  private async ping(): Promise<void> {
    if (!this.redis || this.pinging) return;
    this.pinging = true;
    try {
      await within(this.redis.ping(), REDIS_COMMAND_TIMEOUT_MS);
      this.markUp();
    } catch (error) {
      this.markDown(error);
    } finally {
      this.pinging = false;
    }
  }

  private markUp(): void {
    if (this.up) return;
    this.up = true;
    if (this.lastWarning) this.logger.log.info('Redis answers again: counters are shared by all instances again');
  }

  private markDown(error: unknown): void {
    this.up = false;
    if (this.closing) return;
    const now = Date.now();
    if (now - this.lastWarning < WARN_INTERVAL_MS) return;
    this.lastWarning = now;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.log.warn({ reason }, 'Redis is unavailable: each instance counts rate limits in process until it answers again');
  }
}

/** Rejects when `promise` has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Provides the one `RedisLink` to every module (the rate limit, /health). */
@Global()
@Module({ providers: [RedisLink], exports: [RedisLink] })
export class RedisModule {}
