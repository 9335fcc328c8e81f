import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import type { Logger } from 'pino';
import { ApiExceptionFilter } from './exception.filter.js';
import { AppLogger } from './logger.js';
import { UnitOfWorkInterceptor } from './unit-of-work.js';
import { ApiValidationPipe } from './validation.pipe.js';

/** What every route shares: the logger, the one exception filter, the one validation pipe, a unit of work per write request. */
@Global()
@Module({})
export class HttpModule {
  static forRoot(logger: Logger): DynamicModule {
    return {
      module: HttpModule,
      providers: [
        { provide: AppLogger, useValue: { log: logger } satisfies AppLogger },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useClass: ApiValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: UnitOfWorkInterceptor },
      ],
      exports: [AppLogger],
    };
  }
}
