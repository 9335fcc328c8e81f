import { Controller, Get, HttpStatus } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, oneOf } from '../http/openapi-decorators.js';
import { ErrorResponseDto } from '../http/error.responses.js';
import { DataSource } from 'typeorm';
import { Unmetered } from '../auth/guards.js';
import { DatabaseUnavailable } from '../database/errors.js';
import { RedisLink } from '../redis/redis-link.js';
import { DomainError } from '../errors.js';
import { HealthResponseDto, HealthWithRedisResponseDto, LiveResponseDto } from './health.responses.js';
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
 * draining after SIGTERM. Redis is reported, never failed: without it each
 * instance rate-limits in process.
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
  @ApiAnswer(
    HttpStatus.OK,
    oneOf([HealthResponseDto, HealthWithRedisResponseDto], '`redis` only when REDIS_URL is set: "down" while Redis fails and each instance counts rate limits in process (still 200)'),
  )
  @ApiResponse({ status: HttpStatus.SERVICE_UNAVAILABLE, description: 'Draining after SIGTERM, or the database is not answering: the message names which ("Not ready: instance draining.", "Not ready: database down.")', type: ErrorResponseDto })
  async ready(): Promise<HealthResponseDto | HealthWithRedisResponseDto> {
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
    const redis = this.redis.status;
    return redis ? { status: 'ok', database: 'up', redis } : { status: 'ok', database: 'up' };
  }

  @Get()
  @Unmetered()
  @ApiOperation({ summary: 'Liveness and database check: 200 when the database answers, else 503' })
  @ApiAnswer(
    HttpStatus.OK,
    oneOf([HealthResponseDto, HealthWithRedisResponseDto], '`redis` only when REDIS_URL is set: "down" while Redis fails and each instance counts rate limits in process (still 200)'),
  )
  @ApiResponse({ status: HttpStatus.SERVICE_UNAVAILABLE, description: 'The database is not answering', type: ErrorResponseDto })
  async check(): Promise<HealthResponseDto | HealthWithRedisResponseDto> {
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
    // Redis down is reported, not failed: the service serves on without it (DECISIONS "Rate limit").
    const redis = this.redis.status;
    return redis ? { status: 'ok', database: 'up', redis } : { status: 'ok', database: 'up' };
  }
}
