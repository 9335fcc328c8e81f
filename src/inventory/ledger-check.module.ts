import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { LedgerCheck, type LedgerReport } from './ledger-check.js';
import { LedgerCheckRepository } from './ledger-check.repository.js';

/**
 * The stock invariant's check (LedgerCheck) and its statements, on the
 * DataSource of the modules that import it: the CLI's, for `ledger:check`.
 * The service's own modules leave it out; nothing that serves requests runs it.
 */
@Module({ providers: [LedgerCheckRepository, LedgerCheck], exports: [LedgerCheck] })
export class LedgerCheckModule {
  /** The module on a data source opened outside the service's modules. */
  static on(dataSource: DataSource): DynamicModule {
    return { module: LedgerCheckModule, providers: [{ provide: DataSource, useValue: dataSource }] };
  }
}

/**
 * The check on `dataSource`, for a caller that holds a data source and no
 * application (the e2e suite, the hostile suites, the benchmark and the soak):
 * a Nest context of LedgerCheckModule alone, closed after the check; the data
 * source stays open, its caller's.
 */
export async function checkLedger(dataSource: DataSource): Promise<LedgerReport> {
  const context = await NestFactory.createApplicationContext(LedgerCheckModule.on(dataSource), { logger: false, abortOnError: false });
  try {
    return await context.get(LedgerCheck).run();
  } finally {
    await context.close();
  }
}
