import { type DynamicModule, Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller.js';
import { Metrics } from './metrics.js';

/** The metrics registry, for whatever counts (global); GET /metrics only when METRICS_ENABLED. */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(serve: boolean): DynamicModule {
    return { module: MetricsModule, providers: [Metrics], exports: [Metrics], controllers: serve ? [MetricsController] : [] };
  }
}
