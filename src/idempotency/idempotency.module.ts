import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKeys } from '../http/idempotent.js';
import { IdempotencyInterceptor, IdempotencyService } from './idempotency.js';
import { IdempotencyRecord } from './idempotency.entity.js';
import { IdempotencyRepository } from './idempotency.repository.js';

/** Idempotency-Key handling, for the inventory writes and POST /Item: the IdempotencyKeys of `@Idempotent()` routes. */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyRecord])],
  providers: [IdempotencyService, IdempotencyRepository, IdempotencyInterceptor, { provide: IdempotencyKeys, useExisting: IdempotencyInterceptor }],
  exports: [IdempotencyService, IdempotencyKeys],
})
export class IdempotencyModule {}
