import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DatabaseTarget } from '../config/config.js';
import { dataSourceOptions } from './data-source.js';
import { refusePendingMigrations, runMigrations } from './run-migrations.js';
import { ListReads } from './list-reads.js';
import { TransactionRunner } from './transactions.js';

/** The service's data source (pending migrations are applied when it connects), the transaction runner, and where lists read (ListReads). */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(db: DatabaseTarget, { migrate = true }: { migrate?: boolean } = {}): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          // The entities are those the feature modules register with forFeature.
          useFactory: () => ({ ...dataSourceOptions(db), autoLoadEntities: true, retryAttempts: 2, retryDelay: 1000 }),
          // Connects, then applies pending migrations one runner at a time (never TypeORM's migrationsRun, which races);
          // with MIGRATIONS_AT_START=false, refuses to serve a schema that is behind instead.
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            try {
              if (migrate) await runMigrations(dataSource);
              else await refusePendingMigrations(dataSource);
            } catch (error) {
              await dataSource.destroy().catch(() => undefined);
              throw error;
            }
            return dataSource;
          },
        }),
      ],
      providers: [TransactionRunner, ListReads],
      exports: [TransactionRunner, ListReads],
    };
  }
}
