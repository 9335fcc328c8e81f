import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DatabaseTarget } from '../config/config.js';
import { dataSourceOptions } from './data-source.js';

/** The service's data source; pending migrations are applied when it connects. */
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
    };
  }
}
