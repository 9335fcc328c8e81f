import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModuleMetadata } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import mysql from 'mysql2/promise';
import { pino, type Logger } from 'pino';
import { DataSource } from 'typeorm';
import type { BootstrapCredentials } from '../src/auth/admin.service.js';
import { createApp } from '../src/bootstrap.js';
import { AppConfig, type DatabaseTarget, DEFAULT_ALLOCATION_EXPIRY_SECONDS, defaultListCursorSecret, defaultRedisKeyPrefix, parseDatabaseUrl } from '../src/config/config.js';

/** Which database this e2e run targets: set by test/setup/<db>.ts per jest project. */
export function testDatabaseKind(): 'sqlite' | 'mysql' {
  return process.env.TEST_DB === 'mysql' ? 'mysql' : 'sqlite';
}

export interface TestDatabase {
  target: DatabaseTarget;
  /** The same database as a DATABASE_URL, for child processes. */
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database for one test file: a temp SQLite file, or a MariaDB database created for it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDatabaseKind() === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'inventory-test-'));
    const url = `sqlite:${join(dir, 'test.sqlite')}`;
    return { target: parseDatabaseUrl(url), url, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const base = process.env.TEST_MYSQL_URL;
  if (!base) throw new Error('TEST_MYSQL_URL must be set for the MySQL/MariaDB e2e run');
  const name = `inventory_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const server = new URL(base);
  server.pathname = '/';
  const admin = await mysql.createConnection(server.toString());
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    target: parseDatabaseUrl(url.toString()),
    url: url.toString(),
    drop: async () => {
      const conn = await mysql.createConnection(server.toString());
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}

export interface TestApp {
  app: NestExpressApplication;
  /** The HTTP server, for supertest. */
  http: NestExpressApplication['getHttpServer'] extends () => infer S ? S : never;
  dataSource: DataSource;
  config: AppConfig;
  database: TestDatabase;
  /** The admin client the first start created (null when the database already had clients). */
  admin: BootstrapCredentials | null;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Omit<AppConfig, 'database'>>;
  imports?: ModuleMetadata['imports'];
  logger?: Logger;
  /** Reuse a database (e.g. a second instance on the same one); it is then not dropped on close. */
  database?: TestDatabase;
}

/** Boots the real service (migrations included) on a fresh database. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const owned = !options.database;
  const database = options.database ?? (await createTestDatabase());
  const config = new AppConfig({
    port: 0,
    database: database.target,
    databaseReadUrl: null,
    tokenTtlSeconds: 14400,
    // Tests about the rate limit set their own; the rest should never meet it.
    rateLimitPerMinute: 1_000_000,
    accountCacheSeconds: 60,
    redisUrl: null,
    redisKeyPrefix: defaultRedisKeyPrefix(database.target),
    logLevel: 'silent',
    listCursorSecret: defaultListCursorSecret(database.target),
    migrationsAtStart: true,
    metricsEnabled: true,
    shutdownDelayMs: 0,
    txRetryBudgetMs: 2000,
    eventsEnabled: true,
    eventsRetentionDays: 30,
    eventsTurnGapMs: 50,
    webhookRetrySeconds: [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800],
    // The tests' receivers listen on loopback.
    webhookAllowPrivate: true,
    allocationExpirySeconds: DEFAULT_ALLOCATION_EXPIRY_SECONDS,
    ...options.config,
  });
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let admin: BootstrapCredentials | null = null;
  const app = await createApp(config, { logger, imports: options.imports, announce: (c) => (admin = c) });
  return {
    admin,
    app,
    http: app.getHttpServer(),
    dataSource: app.get(DataSource),
    config,
    database,
    close: async () => {
      await app.close();
      if (owned) await database.drop();
    },
  };
}
