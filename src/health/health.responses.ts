import { ApiSchema } from '@nestjs/swagger';
import { type Answer, ApiEnum, oneOf } from '../http/openapi-decorators.js';
import type { RedisStatus } from '../redis/redis-link.js';

/** GET /health without REDIS_URL or DATABASE_READ_URL. */
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

/** GET /health with DATABASE_READ_URL: `replica` is "down" while the replica fails and lists read the primary (still 200). */
@ApiSchema({ name: 'HealthWithReplica' })
export class HealthWithReplicaResponseDto extends HealthResponseDto {
  @ApiEnum(['up', 'down']) replica: 'up' | 'down';
}

/** GET /health with both. */
@ApiSchema({ name: 'HealthWithRedisAndReplica' })
export class HealthWithRedisAndReplicaResponseDto extends HealthWithRedisResponseDto {
  @ApiEnum(['up', 'down']) replica: 'up' | 'down';
}

export type HealthAnswer = HealthResponseDto | HealthWithRedisResponseDto | HealthWithReplicaResponseDto | HealthWithRedisAndReplicaResponseDto;

/** The documented 200 of /health and /health/ready. */
export const HEALTH_ANSWER: Answer = oneOf(
  [HealthResponseDto, HealthWithRedisResponseDto, HealthWithReplicaResponseDto, HealthWithRedisAndReplicaResponseDto],
  '`redis` only when REDIS_URL is set: "down" while Redis fails and each instance counts rate limits in process. `replica` only when DATABASE_READ_URL is set: "down" while the replica fails and lists read the primary. Neither makes it a 503.',
);

/** GET /health/live. */
@ApiSchema({ name: 'Live' })
export class LiveResponseDto {
  @ApiEnum(['ok']) status: 'ok';
}
