import { Injectable } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { DatabaseUnavailable } from '../database/errors.js';
import { ListReads } from '../database/list-reads.js';
import { DomainError } from '../errors.js';
import { RedisLink } from '../redis/redis-link.js';
import { HealthRepository } from './health.repository.js';
import type { HealthAnswer } from './health.responses.js';
import { Readiness } from './readiness.js';

const PING_TIMEOUT_MS = 2000;

/** 503 `service_unavailable` from GET /health/ready, its message naming what is not ready ("Not ready: instance draining, database down."). */
export class NotReady extends DomainError {
  constructor(failed: string[]) {
    super('service_unavailable', `Not ready: ${failed.join(', ')}.`);
  }
}

/**
 * What `/health` and `/health/ready` answer: the database check it has
 * always been, and whether to send the instance work (the database answers
 * and the instance is not draining after SIGTERM). Redis and the read
 * replica are reported, never failed (see `healthy`).
 */
@Injectable()
export class HealthService {
  constructor(
    private readonly database: HealthRepository,
    private readonly redis: RedisLink,
    private readonly readiness: Readiness,
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly reads: ListReads,
  ) {}

  /** `/health/ready`: the instance is not draining and the database answers (terminus's checks), else NotReady naming which. */
  async ready(): Promise<HealthAnswer> {
    await this.health
      .check([
        () => {
          const check = this.indicators.check('instance');
          return this.readiness.isDraining ? check.down({ state: 'draining' }) : check.up();
        },
        () => this.database.pingCheck(PING_TIMEOUT_MS),
      ])
      .catch((error: { response?: { details?: Record<string, { status: string; state?: string }> } }) => {
        const details = error.response?.details;
        const failed: string[] = [];
        if (details?.instance?.status === 'down') failed.push(`instance ${details.instance.state ?? 'down'}`);
        if (details?.database?.status !== 'up') failed.push('database down');
        throw new NotReady(failed);
      });
    return this.healthy();
  }

  /** `/health`: the database answers within PING_TIMEOUT_MS, else DatabaseUnavailable. */
  async check(): Promise<HealthAnswer> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DatabaseUnavailable()), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.database.ping(), timeout]);
    } catch {
      throw new DatabaseUnavailable();
    } finally {
      clearTimeout(timer);
    }
    return this.healthy();
  }

  /**
   * The 200 body, the database being up. Redis and the replica are reported,
   * never failed: without Redis each instance rate-limits in process
   * (DECISIONS "Rate limit"); without the replica lists read the primary.
   */
  private async healthy(): Promise<HealthAnswer> {
    const redis = this.redis.status;
    const replica = await this.reads.status();
    return { status: 'ok', database: 'up', ...(redis ? { redis } : {}), ...(replica ? { replica } : {}) };
  }
}
