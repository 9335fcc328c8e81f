import { resolve } from 'node:path';
import { ConfigError, defaultListCursorSecret, defaultRedisKeyPrefix, loadConfig, parseDatabaseUrl } from './config.js';

const failure = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    expect({ ...loadConfig({}) }).toEqual({
      port: 3000,
      database: { type: 'sqlite', file: 'data/inventory.sqlite' },
      databaseReadUrl: null,
      tokenTtlSeconds: 14400,
      rateLimitPerMinute: 100,
      accountCacheSeconds: 60,
      redisUrl: null,
      redisKeyPrefix: `inventory:sqlite:${resolve('data/inventory.sqlite')}`,
      logLevel: 'info',
      listCursorSecret: defaultListCursorSecret({ type: 'sqlite', file: 'data/inventory.sqlite' }),
      migrationsAtStart: true,
      metricsEnabled: true,
      shutdownDelayMs: 0,
      txRetryBudgetMs: null,
      eventsEnabled: true,
      eventsRetentionDays: 30,
      eventsTurnGapMs: 50,
      webhookRetrySeconds: [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800],
      webhookAllowPrivate: false,
      allocationExpirySeconds: 10,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'mysql://inv:s3cret@db.local:3307/inventory',
      DATABASE_READ_URL: 'mariadb://reader:r3ad@replica.local:3306/inventory',
      TOKEN_TTL_SECONDS: '60',
      RATE_LIMIT_PER_MINUTE: '5',
      ACCOUNT_CACHE_SECONDS: '0',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: 'erp-eu:inventory',
      LOG_LEVEL: 'WARN',
      LIST_CURSOR_SECRET: 'a-deployment-secret-of-some-length',
      MIGRATIONS_AT_START: 'false',
      METRICS_ENABLED: '0',
      SHUTDOWN_DELAY_MS: '5000',
      TX_RETRY_BUDGET_MS: '10000',
      EVENTS_ENABLED: 'false',
      EVENTS_RETENTION_DAYS: '7',
      EVENTS_TURN_GAP_MS: '0',
      WEBHOOK_RETRY_SECONDS: '1, 2,3',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ALLOCATION_EXPIRY_INTERVAL_SECONDS: '1',
    });
    expect(config).toMatchObject({
      port: 8080,
      database: { type: 'mysql', url: 'mysql://inv:s3cret@db.local:3307/inventory', database: 'inventory' },
      databaseReadUrl: 'mysql://reader:r3ad@replica.local:3306/inventory',
      tokenTtlSeconds: 60,
      rateLimitPerMinute: 5,
      accountCacheSeconds: 0,
      redisUrl: 'redis://127.0.0.1:6379',
      redisKeyPrefix: 'erp-eu:inventory',
      logLevel: 'warn',
      listCursorSecret: 'a-deployment-secret-of-some-length',
      migrationsAtStart: false,
      metricsEnabled: false,
      shutdownDelayMs: 5000,
      txRetryBudgetMs: 10000,
      eventsEnabled: false,
      eventsRetentionDays: 7,
      eventsTurnGapMs: 0,
      webhookRetrySeconds: [1, 2, 3],
      webhookAllowPrivate: true,
      allocationExpirySeconds: 1,
    });
  });

  it('derives the list cursor secret from the whole database URL when none is set: one per deployment', () => {
    const secret = (url: string) => loadConfig({ DATABASE_URL: url }).listCursorSecret;
    expect(secret('mysql://inv:a@db/inventory')).toBe(secret('mysql://inv:a@db/inventory'));
    expect(secret('mysql://inv:a@db/inventory')).not.toBe(secret('mysql://inv:b@db/inventory'));
    expect(secret('mysql://inv:a@db/inventory')).not.toContain('inv:a');
  });

  it.each([
    ['DATABASE_URL', 'nonsense'],
    ['DATABASE_URL', 'postgres://localhost/db'],
    ['DATABASE_URL', 'mysql://localhost'],
    ['DATABASE_URL', 'sqlite:'],
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['TOKEN_TTL_SECONDS', '-5'],
    ['TOKEN_TTL_SECONDS', '0'],
    ['RATE_LIMIT_PER_MINUTE', '1.5'],
    ['ACCOUNT_CACHE_SECONDS', 'soon'],
    ['REDIS_URL', 'localhost:6379'],
    ['REDIS_KEY_PREFIX', 'two words'],
    ['REDIS_KEY_PREFIX', 'x'.repeat(201)],
    ['LOG_LEVEL', 'loud'],
    ['LIST_CURSOR_SECRET', 'too-short'],
    ['MIGRATIONS_AT_START', 'yes'],
    ['METRICS_ENABLED', 'on'],
    ['SHUTDOWN_DELAY_MS', '-1'],
    ['TX_RETRY_BUDGET_MS', '60001'],
    ['EVENTS_RETENTION_DAYS', '0'],
    ['EVENTS_TURN_GAP_MS', '1001'],
    ['EVENTS_TURN_GAP_MS', '-1'],
    ['EVENTS_ENABLED', 'sometimes'],
    ['WEBHOOK_RETRY_SECONDS', '5;30'],
    ['WEBHOOK_RETRY_SECONDS', '5,-1'],
    ['WEBHOOK_RETRY_SECONDS', '86401'],
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe'],
    ['ALLOCATION_EXPIRY_INTERVAL_SECONDS', '0'],
    ['ALLOCATION_EXPIRY_INTERVAL_SECONDS', '31'],
  ])('refuses %s=%s, naming the variable', (variable, value) => {
    const error = failure({ [variable]: value });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable} `)).toBe(true);
  });

  it('refuses DATABASE_READ_URL beside SQLite, and anything but a MySQL/MariaDB URL, naming DATABASE_READ_URL', () => {
    const mysql = 'mysql://inv@db.local/inventory';
    for (const env of [
      { DATABASE_URL: 'sqlite:data/inventory.sqlite', DATABASE_READ_URL: 'mysql://reader@replica.local/inventory' },
      { DATABASE_URL: mysql, DATABASE_READ_URL: 'sqlite:replica.sqlite' },
      { DATABASE_URL: mysql, DATABASE_READ_URL: 'mysql://replica.local/' },
      { DATABASE_URL: mysql, DATABASE_READ_URL: 'postgres://replica.local/inventory' },
    ]) {
      const error = failure(env);
      expect({ env, variable: error.variable }).toEqual({ env, variable: 'DATABASE_READ_URL' });
    }
    expect(failure({ DATABASE_READ_URL: 'mysql://r@h/db' }).message).toBe('DATABASE_READ_URL needs a MySQL/MariaDB DATABASE_URL (SQLite has no replicas); unset it');
  });

  it('does not echo a password from a malformed DATABASE_URL at length', () => {
    expect(failure({ DATABASE_URL: `nonsense${'x'.repeat(100)}hunter2` }).message).not.toContain('hunter2');
  });
});

describe('the default REDIS_KEY_PREFIX', () => {
  const prefix = (url: string) => defaultRedisKeyPrefix(parseDatabaseUrl(url));

  it("is the database's host, port and name, never its user or password", () => {
    expect(prefix('mysql://inv:s3cret@DB.local:3307/inventory')).toBe('inventory:mysql:db.local:3307/inventory');
    expect(prefix('mariadb://root@127.0.0.1/inventory')).toBe('inventory:mysql:127.0.0.1:3306/inventory');
  });

  it('is the same for every instance of one deployment and differs between deployments', () => {
    expect(prefix('mysql://a:x@db:3306/inventory')).toBe(prefix('mysql://b:y@db:3306/inventory'));
    expect(prefix('mysql://root@db:3306/inventory')).not.toBe(prefix('mysql://root@db:3306/inventory_staging'));
    expect(prefix('mysql://root@db:3306/inventory')).not.toBe(prefix('mysql://root@db2:3306/inventory'));
    expect(prefix('mysql://root@db:3306/inventory')).not.toBe(prefix('mysql://root@db:3307/inventory'));
  });

  it("is a SQLite file's absolute path", () => {
    expect(prefix('sqlite:data/x.sqlite')).toBe(`inventory:sqlite:${resolve('data/x.sqlite')}`);
    expect(prefix('sqlite:data/x.sqlite')).not.toBe(prefix('sqlite:data/y.sqlite'));
  });

  it('gives way to REDIS_KEY_PREFIX', () => {
    expect(loadConfig({ DATABASE_URL: 'mysql://root@db/inventory' }).redisKeyPrefix).toBe('inventory:mysql:db:3306/inventory');
    expect(loadConfig({ DATABASE_URL: 'mysql://root@db/inventory', REDIS_KEY_PREFIX: 'blue' }).redisKeyPrefix).toBe('blue');
  });
});

describe('parseDatabaseUrl', () => {
  it('accepts sqlite files and absolute paths', () => {
    expect(parseDatabaseUrl('sqlite:data/x.sqlite')).toEqual({ type: 'sqlite', file: 'data/x.sqlite' });
    expect(parseDatabaseUrl('sqlite:///var/lib/inv.sqlite')).toEqual({ type: 'sqlite', file: '/var/lib/inv.sqlite' });
  });

  it('refuses an in-memory SQLite database, whose transactions could not have a connection of their own', () => {
    expect(() => parseDatabaseUrl('sqlite::memory:')).toThrow(/in-memory SQLite database is not supported/);
  });

  it('accepts mariadb:// as mysql://', () => {
    expect(parseDatabaseUrl('mariadb://root@127.0.0.1/test')).toEqual({ type: 'mysql', url: 'mysql://root@127.0.0.1/test', database: 'test' });
  });
});
