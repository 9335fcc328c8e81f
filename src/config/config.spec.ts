import { ConfigError, loadConfig, parseDatabaseUrl } from './config.js';

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
      tokenTtlSeconds: 14400,
      rateLimitPerMinute: 100,
      accountCacheSeconds: 60,
      redisUrl: null,
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'mysql://inv:s3cret@db.local:3307/inventory',
      TOKEN_TTL_SECONDS: '60',
      RATE_LIMIT_PER_MINUTE: '5',
      ACCOUNT_CACHE_SECONDS: '0',
      REDIS_URL: 'redis://127.0.0.1:6379',
      LOG_LEVEL: 'WARN',
    });
    expect(config).toMatchObject({
      port: 8080,
      database: { type: 'mysql', url: 'mysql://inv:s3cret@db.local:3307/inventory', database: 'inventory' },
      tokenTtlSeconds: 60,
      rateLimitPerMinute: 5,
      accountCacheSeconds: 0,
      redisUrl: 'redis://127.0.0.1:6379',
      logLevel: 'warn',
    });
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
    ['LOG_LEVEL', 'loud'],
  ])('refuses %s=%s, naming the variable', (variable, value) => {
    const error = failure({ [variable]: value });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable} `)).toBe(true);
  });

  it('does not echo a password from a malformed DATABASE_URL at length', () => {
    expect(failure({ DATABASE_URL: `nonsense${'x'.repeat(100)}hunter2` }).message).not.toContain('hunter2');
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
