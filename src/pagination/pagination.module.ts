import { Module } from '@nestjs/common';
import { PageHeadersCheck } from './page-headers.interceptor.js';

/**
 * The start-up check that every list route declares its page headers
 * (`@PageHeaders()`); lists themselves use `PageQueryDto` and `paginate`.
 */
@Module({ providers: [PageHeadersCheck] })
export class PaginationModule {}
