import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';
import { HealthRepository } from './health.repository.js';
import { HealthService } from './health.service.js';
import { Readiness } from './readiness.js';

/** GET /health, /health/live and /health/ready (@nestjs/terminus for the checks of readiness). */
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [HealthService, HealthRepository, Readiness],
  exports: [Readiness],
})
export class HealthModule {}
