import { ApiSchema } from '@nestjs/swagger';
import { ApiEnum } from '../http/openapi-decorators.js';
import type { RedisStatus } from '../redis/redis-link.js';

/** GET /health without REDIS_URL. */
@ApiSchema({ name: 'Health' })
export class HealthResponseDto {
  @ApiEnum(['ok']) status: 'ok';
  @ApiEnum(['up']) database: 'up';
}

/** GET /health with REDIS_URL: `redis` is "down" while Redis fails (still 200). */
@ApiSchema({ name: 'HealthWithRedis' })
export class HealthWithRedisResponseDto extends HealthResponseDto {
  @ApiEnum(['up', 'down']) redis: RedisStatus;
}

/** GET /health/live. */
@ApiSchema({ name: 'Live' })
export class LiveResponseDto {
  @ApiEnum(['ok']) status: 'ok';
}
