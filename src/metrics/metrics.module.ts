import { type DynamicModule, Global, Module } from '@nestjs/common';
import { DatabaseMetrics } from '../database/reporting.js';
import { MetricsController } from './metrics.controller.js';
import { Metrics } from './metrics.js';

/** The metrics registry, for whatever counts (global), also as database/'s DatabaseMetrics; GET /metrics only when METRICS_ENABLED. */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(serve: boolean): DynamicModule {
    return {
      module: MetricsModule,
      providers: [Metrics, { provide: DatabaseMetrics, useExisting: Metrics }],
      exports: [Metrics, DatabaseMetrics],
      controllers: serve ? [MetricsController] : [],
    };
  }
}
