import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyInterceptor, IdempotencyService } from './idempotency.js';
import { IdempotencyRecord } from './idempotency.entity.js';

/** Idempotency-Key handling, for the inventory writes and POST /Item. */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyRecord])],
  providers: [IdempotencyService, IdempotencyInterceptor],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
