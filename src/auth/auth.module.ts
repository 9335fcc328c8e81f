import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '../config/config.js';
import { RedisLink } from '../redis/redis-link.js';
import { AccessService } from './access.service.js';
import { AccountsModule } from './accounts.module.js';
import { AccessGuard, BearerAuthGuard } from './guards.js';
import { MemoryRateLimitStore, RateLimitGuard, SharedRateLimitStore } from './rate-limit.js';
import { ClientBasicStrategy, OptionalClientBasicGuard, TokenController } from './token.controller.js';

/**
 * POST /Token and the global guards, in this order: identify the caller from
 * the bearer token, count the request against its rate limit, then refuse it
 * if it is unauthenticated, read-only for a write, or lacks the SecurityID.
 */
@Module({
  imports: [
    PassportModule,
    AccountsModule,
    ThrottlerModule.forRootAsync({
      inject: [AppConfig, RedisLink],
      useFactory: (config: AppConfig, redis: RedisLink) => ({
        throttlers: [{ name: 'default', ttl: 60_000, limit: config.rateLimitPerMinute }],
        storage: config.redisUrl ? new SharedRateLimitStore(redis, config.redisKeyPrefix) : new MemoryRateLimitStore(),
      }),
    }),
  ],
  controllers: [TokenController],
  providers: [
    AccessService,
    ClientBasicStrategy,
    OptionalClientBasicGuard,
    { provide: APP_GUARD, useClass: BearerAuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  exports: [AccessService],
})
export class AuthModule {}
