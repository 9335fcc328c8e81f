import { Controller, Get, HttpStatus } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiAnswer } from '../http/openapi-decorators.js';
import { ErrorResponseDto } from '../http/error.responses.js';
import { DataSource } from 'typeorm';
import { ListReads } from '../database/list-reads.js';
import { Unmetered } from '../http/route-access.js';
import { DatabaseUnavailable } from '../database/errors.js';
import { RedisLink } from '../redis/redis-link.js';
import { DomainError } from '../errors.js';
import { HEALTH_ANSWER, type HealthAnswer, LiveResponseDto } from './health.responses.js';
import { Readiness } from './readiness.js';

const PING_TIMEOUT_MS = 2000;

/** 503 `service_unavailable` from GET /health/ready, its message naming what is not ready ("Not ready: instance draining, database down."). */
export class NotReady extends DomainError {
  constructor(failed: string[]) {
    super('service_unavailable', `Not ready: ${failed.join(', ')}.`);
  }
}

/**
 * `GET /health`, `/health/live` and `/health/ready`: no auth, no rate limit,
 * outside /api/v1. `/health` is the database check it has always been;
 * `live` only says the process answers (restart it when not); `ready` says
 * whether to send it work: the database answers and the instance is not
 * draining after SIGTERM. Redis and the read replica are reported, never
 * failed (see `healthy`).
 */
@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: RedisLink,
    private readonly readiness: Readiness,
    private readonly health: HealthCheckService,
    private readonly typeOrm: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly reads: ListReads,
  ) {}

  @Get('live')
  @Unmetered()
  @ApiOperation({ summary: 'Liveness: 200 while the process answers, whatever the database does' })
  @ApiAnswer(HttpStatus.OK, LiveResponseDto, 'The process answers')
  live(): LiveResponseDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @Unmetered()
  @ApiOperation({ summary: 'Readiness: 200 when the database answers and the instance is not draining; else 503 naming what is not ready' })
  @ApiAnswer(HttpStatus.OK, HEALTH_ANSWER)
  @ApiResponse({ status: HttpStatus.SERVICE_UNAVAILABLE, description: 'Draining after SIGTERM, or the database is not answering: the message names which ("Not ready: instance draining.", "Not ready: database down.")', type: ErrorResponseDto })
  async ready(): Promise<HealthAnswer> {
    await this.health
      .check([
        () => {
          const check = this.indicators.check('instance');
          return this.readiness.isDraining ? check.down({ state: 'draining' }) : check.up();
        },
        () => this.typeOrm.pingCheck('database', { connection: this.dataSource, timeout: PING_TIMEOUT_MS }),
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

  @Get()
  @Unmetered()
  @ApiOperation({ summary: 'Liveness and database check: 200 when the database answers, else 503' })
  @ApiAnswer(HttpStatus.OK, HEALTH_ANSWER)
  @ApiResponse({ status: HttpStatus.SERVICE_UNAVAILABLE, description: 'The database is not answering', type: ErrorResponseDto })
  async check(): Promise<HealthAnswer> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DatabaseUnavailable()), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.dataSource.query('SELECT 1'), timeout]);
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
