import { type DynamicModule, Global, Module } from '@nestjs/common';
import { RetryObserver } from '../database/retry.js';
import { MetricsController } from './metrics.controller.js';
import { Metrics } from './metrics.js';

/**
 * The metrics registry, for whatever counts (global), also as the transaction
 * runner's RetryObserver; GET /metrics only when METRICS_ENABLED.
 */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(serve: boolean): DynamicModule {
    return { module: MetricsModule, providers: [Metrics, { provide: RetryObserver, useExisting: Metrics }], exports: [Metrics, RetryObserver], controllers: serve ? [MetricsController] : [] };
  }
}
