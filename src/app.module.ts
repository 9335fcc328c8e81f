import { type DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import type { Logger } from 'pino';
import { AdminModule } from './auth/admin.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { AppConfig } from './config/config.js';
import { InventoryModule } from './inventory/inventory.module.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { EventsModule } from './events/events.module.js';
import { WebhooksModule } from './events/webhooks.module.js';
import { HttpModule } from './http/http.module.js';
import { PaginationModule } from './pagination/pagination.module.js';
import { RedisModule } from './redis/redis-link.js';

export interface AppModuleOptions {
  config: AppConfig;
  logger: Logger;
  /** Extra modules, for tests that need a route of their own. */
  imports?: ModuleMetadata['imports'];
}

@Module({})
export class AppModule {
  static forRoot({ config, logger, imports = [] }: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        HttpModule.forRoot(logger),
        DatabaseModule.forRoot(config.database, { migrate: config.migrationsAtStart }),
        MetricsModule.forRoot(config.metricsEnabled),
        RedisModule,
        PaginationModule,
        AuthModule,
        AdminModule,
        CatalogModule,
        InventoryModule,
        HealthModule,
        EventsModule,
        WebhooksModule,
        ...imports,
      ],
    };
  }
}
