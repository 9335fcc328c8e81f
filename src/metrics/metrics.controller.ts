import { Controller, Get, Header, HttpStatus } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Unmetered } from '../http/route-access.js';
import { Metrics } from './metrics.js';

/** `GET /metrics`: Prometheus text format, no auth, no rate limit, outside /api/v1 (METRICS_ENABLED). */
@ApiTags('Health')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @Unmetered()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Prometheus metrics: requests by route template, rate limiting, replays, stock operations, transaction retries, pool, process' })
  @ApiProduces('text/plain')
  @ApiResponse({ status: HttpStatus.OK, description: 'Prometheus text exposition format 0.0.4', schema: { type: 'string' } })
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
