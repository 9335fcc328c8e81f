import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DatabaseTarget } from '../config/config.js';
import { dataSourceOptions } from './data-source.js';
import { TransactionRunner } from './transactions.js';

/** The service's data source (pending migrations are applied when it connects) and the transaction runner. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(db: DatabaseTarget): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(db),
          migrationsRun: true,
          retryAttempts: 2,
          retryDelay: 1000,
        }),
      ],
      providers: [TransactionRunner],
      exports: [TransactionRunner],
    };
  }
}
