import { Controller, Get, HttpStatus } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiAnswer } from '../http/openapi-decorators.js';
import { ErrorResponseDto } from '../http/error.responses.js';
import { Unmetered } from '../http/route-access.js';
import { HEALTH_ANSWER, type HealthAnswer, LiveResponseDto } from './health.responses.js';
import { HealthService } from './health.service.js';

/**
 * `GET /health`, `/health/live` and `/health/ready`: no auth, no rate limit,
 * outside /api/v1. `/health` is the database check it has always been;
 * `live` only says the process answers (restart it when not); `ready` says
 * whether to send it work: the database answers and the instance is not
 * draining after SIGTERM. Redis and the read replica are reported, never
 * failed (HealthService).
 */
@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @Unmetered()
  @ApiOperation({ summary: 'Liveness: 200 while the process answers, whatever the database does' })
  @ApiAnswer(HttpStatus.OK, LiveResponseDto, 'The process answers')
  live(): LiveResponseDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @Unmetered()
  @ApiOperation({ summary: 'Readiness: 200 when the database answers and the instance is not draining; else 503 naming what is not ready' })
  @ApiAnswer(HttpStatus.OK, HEALTH_ANSWER)
  @ApiResponse({ status: HttpStatus.SERVICE_UNAVAILABLE, description: 'Draining after SIGTERM, or the database is not answering: the message names which ("Not ready: instance draining.", "Not ready: database down.")', type: ErrorResponseDto })
  ready(): Promise<HealthAnswer> {
    return this.health.ready();
  }

  @Get()
  @Unmetered()
  @ApiOperation({ summary: 'Liveness and database check: 200 when the database answers, else 503' })
  @ApiAnswer(HttpStatus.OK, HEALTH_ANSWER)
  @ApiResponse({ status: HttpStatus.SERVICE_UNAVAILABLE, description: 'The database is not answering', type: ErrorResponseDto })
  check(): Promise<HealthAnswer> {
    return this.health.check();
  }
}
