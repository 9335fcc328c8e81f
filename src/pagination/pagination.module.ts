import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { PageHeadersInterceptor } from './page-headers.interceptor.js';

/** Page headers for every list endpoint; lists themselves use `PageQueryDto` and `paginate`. */
@Module({ providers: [{ provide: APP_INTERCEPTOR, useClass: PageHeadersInterceptor }] })
export class PaginationModule {}
