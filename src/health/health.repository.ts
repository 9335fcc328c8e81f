import { Injectable } from '@nestjs/common';
import { type HealthIndicatorResult, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { DataSource } from 'typeorm';

/** The health checks' statements on the primary database: its plain ping, and the readiness indicator's. */
@Injectable()
export class HealthRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly typeOrm: TypeOrmHealthIndicator,
  ) {}

  /** `SELECT 1`: resolves once the database answers. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /** The readiness indicator `database`: @nestjs/terminus pings the data source, up to `timeoutMs`. */
  pingCheck(timeoutMs: number): PromiseLike<HealthIndicatorResult<'database'>> {
    return this.typeOrm.pingCheck('database', { connection: this.dataSource, timeout: timeoutMs });
  }
}
