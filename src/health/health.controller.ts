import { Controller, Get, HttpStatus } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, oneOf } from '../http/openapi-decorators.js';
import { ErrorResponseDto } from '../http/error.responses.js';
import { DataSource } from 'typeorm';
import { Unmetered } from '../auth/guards.js';
import { DatabaseUnavailable } from '../database/errors.js';
import { RedisLink } from '../redis/redis-link.js';
import { HealthResponseDto, HealthWithRedisResponseDto } from './health.responses.js';

const PING_TIMEOUT_MS = 2000;

/** `GET /health` (DECISIONS "Operating it"): no auth, no rate limit, outside /api/v1. */
@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly redis: RedisLink,
  ) {}

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
