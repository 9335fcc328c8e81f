import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import type { Logger } from 'pino';
import { DatabaseLog } from '../database/reporting.js';
import { ApiExceptionFilter } from './exception.filter.js';
import { AppLogger } from './logger.js';
import { DeclaredRoutes } from './routes.js';
import { UnitOfWorkCheck } from './unit-of-work.js';
import { ApiValidationPipe } from './validation.pipe.js';

/**
 * What every route shares: the logger (also as database/'s DatabaseLog), the
 * one exception filter, the one validation pipe; the unit of work that every
 * write route declares, and the start-up check that none lacks it.
 */
@Global()
@Module({})
export class HttpModule {
  static forRoot(logger: Logger): DynamicModule {
    return {
      module: HttpModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: AppLogger, useValue: { log: logger } satisfies AppLogger },
        { provide: DatabaseLog, useExisting: AppLogger },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useClass: ApiValidationPipe },
        DeclaredRoutes,
        UnitOfWorkCheck,
      ],
      exports: [AppLogger, DatabaseLog, DeclaredRoutes],
    };
  }
}
