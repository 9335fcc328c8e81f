import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Configuration from the environment (DECISIONS "Operating it"), checked once at
 * start-up. A bad value stops the process with a message naming the variable.
 */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export type DatabaseTarget =
  | { type: 'sqlite'; file: string }
  | { type: 'mysql'; url: string; database: string };

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/** Typed configuration; also the DI token under which Nest provides it. */
export class AppConfig {
  readonly port: number;
  readonly database: DatabaseTarget;
  /** A replica of the database that list endpoints read (DATABASE_READ_URL), as a mysql:// URL; null: lists read the primary. */
  readonly databaseReadUrl: string | null;
  readonly tokenTtlSeconds: number;
  readonly rateLimitPerMinute: number;
  readonly accountCacheSeconds: number;
  readonly redisUrl: string | null;
  /** Starts every Redis key, so that deployments sharing one Redis never share counters. */
  readonly redisKeyPrefix: string;
  readonly logLevel: LogLevel;
  /** Keys the MAC of list cursors; the same for every instance of a deployment. */
  readonly listCursorSecret: string;
  /** Whether start-up applies pending migrations (else it refuses to start while any is pending). */
  readonly migrationsAtStart: boolean;
  /** Whether GET /metrics is served. */
  readonly metricsEnabled: boolean;
  /** After SIGTERM: how long the instance goes on serving, not ready, before it stops accepting connections. */
  readonly shutdownDelayMs: number;
  /**
   * How long a write may spend running its transaction again after transient failures (deadlocks, certification
   * failures) before 409; null when TX_RETRY_BUDGET_MS is not set: the default for the database found (TransactionRunner).
   */
  readonly txRetryBudgetMs: number | null;
  /** Whether committed changes record events (EVENTS_ENABLED); false: no event rows, an empty feed, no webhooks. */
  readonly eventsEnabled: boolean;
  /** How long events stay in the feed, in days (EVENTS_RETENTION_DAYS). */
  readonly eventsRetentionDays: number;
  /** The least time between the starts of two turns of the event sequencer, in ms (EVENTS_TURN_GAP_MS). */
  readonly eventsTurnGapMs: number;
  /** The pauses before each retry of a webhook delivery, in seconds (WEBHOOK_RETRY_SECONDS); after the last, the event is recorded as failed. */
  readonly webhookRetrySeconds: number[];
  /** Whether webhook URLs may reach loopback, private and link-local addresses (WEBHOOK_ALLOW_PRIVATE). */
  readonly webhookAllowPrivate: boolean;
  /**
   * How often each instance looks for open allocations past their expiresAt, in seconds
   * (ALLOCATION_EXPIRY_INTERVAL_SECONDS); at most 30, so that one is cancelled within 60 s of that time.
   */
  readonly allocationExpirySeconds: number;

  constructor(values: AppConfig) {
    Object.assign(this, values);
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): AppConfig {
  const database = parseDatabaseUrl(read(env, 'DATABASE_URL') ?? 'sqlite:data/inventory.sqlite');
  return new AppConfig({
    port: integer(env, 'PORT', 3000, 0, 65535),
    database,
    databaseReadUrl: databaseReadUrl(env, database),
    tokenTtlSeconds: integer(env, 'TOKEN_TTL_SECONDS', 14400, 1, 31_536_000),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 100, 1, 10_000_000),
    accountCacheSeconds: integer(env, 'ACCOUNT_CACHE_SECONDS', 60, 0, 86_400),
    redisUrl: redisUrl(env),
    redisKeyPrefix: redisKeyPrefix(env, database),
    logLevel: logLevel(env),
    listCursorSecret: listCursorSecret(env, database),
    migrationsAtStart: boolean(env, 'MIGRATIONS_AT_START', true),
    metricsEnabled: boolean(env, 'METRICS_ENABLED', true),
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 0, 0, 600_000),
    txRetryBudgetMs: integer(env, 'TX_RETRY_BUDGET_MS', null, 0, 60_000),
    eventsEnabled: boolean(env, 'EVENTS_ENABLED', true),
    eventsRetentionDays: integer(env, 'EVENTS_RETENTION_DAYS', 30, 1, 36_500),
    eventsTurnGapMs: integer(env, 'EVENTS_TURN_GAP_MS', 50, 0, 1000),
    webhookRetrySeconds: secondsList(env, 'WEBHOOK_RETRY_SECONDS', DEFAULT_WEBHOOK_RETRY_SECONDS),
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    allocationExpirySeconds: integer(env, 'ALLOCATION_EXPIRY_INTERVAL_SECONDS', DEFAULT_ALLOCATION_EXPIRY_SECONDS, 1, 30),
  });
}

/** Reads `.env` from the working directory into process.env, if the file exists. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

export function parseDatabaseUrl(raw: string, variable = 'DATABASE_URL'): DatabaseTarget {
  const shape = 'must be mysql://user:pass@host:3306/db or sqlite:<file>';
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!file) throw new ConfigError(variable, `${shape}; the sqlite file name is missing`);
    // Transactions use a connection of their own, which an in-memory database cannot share.
    if (file === ':memory:') throw new ConfigError(variable, `${shape}; an in-memory SQLite database is not supported, name a file`);
    return { type: 'sqlite', file };
  }
  if (/^(mysql|mariadb):\/\//.test(raw)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError(variable, `${shape}; it is not a valid URL`);
    }
    const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
    if (!url.hostname) throw new ConfigError(variable, `${shape}; the host is missing`);
    if (!database) throw new ConfigError(variable, `${shape}; the database name is missing`);
    return { type: 'mysql', url: raw.replace(/^mariadb:/, 'mysql:'), database };
  }
  throw new ConfigError(variable, `${shape}; got "${raw.slice(0, 40)}"`);
}

/**
 * DATABASE_READ_URL: a MySQL/MariaDB replica of DATABASE_URL's database that
 * list endpoints read. Refused beside SQLite, which has no replicas.
 */
function databaseReadUrl(env: Env, database: DatabaseTarget): string | null {
  const raw = read(env, 'DATABASE_READ_URL');
  if (raw === undefined) return null;
  if (database.type === 'sqlite') throw new ConfigError('DATABASE_READ_URL', 'needs a MySQL/MariaDB DATABASE_URL (SQLite has no replicas); unset it');
  const replica = parseDatabaseUrl(raw, 'DATABASE_READ_URL');
  if (replica.type !== 'mysql') throw new ConfigError('DATABASE_READ_URL', 'must be mysql://user:pass@host:3306/db, a replica of DATABASE_URL');
  return replica.url;
}

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function integer<F extends number | null>(env: Env, name: string, fallback: F, min: number, max: number): number | F {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}; got "${raw.slice(0, 40)}"`);
  }
  return Number(raw);
}

/** ALLOCATION_EXPIRY_INTERVAL_SECONDS unless set (EXTENSIONS: an expired allocation is cancelled within 60 s). */
export const DEFAULT_ALLOCATION_EXPIRY_SECONDS = 10;

/** Retries of a webhook delivery: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h (about 24 h in all). */
export const DEFAULT_WEBHOOK_RETRY_SECONDS = [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800];

/** A comma-separated list of 0 to 50 whole numbers of seconds, each at most a day. */
function secondsList(env: Env, name: string, fallback: number[]): number[] {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 50 || parts.some((p) => !/^\d{1,5}$/.test(p) || Number(p) > 86_400)) {
    throw new ConfigError(name, `must be a comma-separated list of at most 50 whole numbers of seconds, each from 0 to 86400; got "${raw.slice(0, 40)}"`);
  }
  return parts.map(Number);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false; got "${raw.slice(0, 40)}"`);
}

function redisUrl(env: Env): string | null {
  const raw = read(env, 'REDIS_URL');
  if (raw === undefined) return null;
  if (!/^rediss?:\/\/[^/]/.test(raw)) throw new ConfigError('REDIS_URL', 'must be redis://host:port or rediss://host:port');
  return raw;
}

/**
 * REDIS_KEY_PREFIX, or one derived from the database (DECISIONS "Rate limit"):
 * its host, port and name, or the SQLite file's absolute path. Instances of one
 * deployment name the same database and so share counters; another deployment
 * on the same Redis has another database and so counters of its own. Never the
 * user or password.
 */
export function defaultRedisKeyPrefix(database: DatabaseTarget): string {
  if (database.type === 'sqlite') return `inventory:sqlite:${resolve(database.file)}`;
  const url = new URL(database.url);
  return `inventory:mysql:${url.hostname.toLowerCase()}:${url.port || '3306'}/${database.database}`;
}

function redisKeyPrefix(env: Env, database: DatabaseTarget): string {
  const raw = read(env, 'REDIS_KEY_PREFIX');
  if (raw === undefined) return defaultRedisKeyPrefix(database);
  if (!/^[\x21-\x7e]{1,200}$/.test(raw)) throw new ConfigError('REDIS_KEY_PREFIX', 'must be 1 to 200 printable ASCII characters without spaces');
  return raw;
}

/**
 * LIST_CURSOR_SECRET, or one derived from DATABASE_URL (its user and password
 * included, never logged): instances of one deployment name the same
 * database, so a cursor made by one is read by another. A cursor grants
 * nothing (the scope is applied by the query); the secret keeps an edited
 * cursor from being read as another position.
 */
export function defaultListCursorSecret(database: DatabaseTarget): string {
  const material = database.type === 'sqlite' ? `sqlite:${resolve(database.file)}` : database.url;
  return createHash('sha256').update(`list-cursor\0${material}`).digest('hex');
}

function listCursorSecret(env: Env, database: DatabaseTarget): string {
  const raw = read(env, 'LIST_CURSOR_SECRET');
  if (raw === undefined) return defaultListCursorSecret(database);
  if (raw.length < 16 || raw.length > 200) throw new ConfigError('LIST_CURSOR_SECRET', 'must be 16 to 200 characters');
  return raw;
}

function logLevel(env: Env): LogLevel {
  const raw = (read(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}; got "${raw.slice(0, 40)}"`);
  }
  return raw as LogLevel;
}
