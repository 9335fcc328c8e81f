// `npm run test:hostile`: fuzzing, the OWASP API Top 10 checks, crash safety,
// database faults, several instances, Redis outages, the docs page in a real browser, and a
// MariaDB whose global settings are hostile (hostile:server-settings, its own throwaway server). The
// service processes these start need MariaDB and Redis; unset URLs default to
// the local servers, and a server that is not there fails the run (nothing is
// skipped).
process.env.TEST_MYSQL_URL ||= 'mysql://root@127.0.0.1:3306/test';
process.env.TEST_REDIS_URL ||= 'redis://127.0.0.1:6379';

const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', useESM: true }] },
};
const spec = (name) => `<rootDir>/test/hostile/${name}.hostile-spec.ts`;

export default {
  testTimeout: 300_000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  projects: [
    {
      ...base,
      displayName: 'hostile:sqlite',
      setupFiles: ['<rootDir>/test/setup/nest-first.ts', '<rootDir>/test/setup/sqlite.ts'],
      testMatch: ['fuzz', 'owasp', 'crash', 'docs-browser', 'category-stream', 'concurrent-start', 'slow-clients'].map(spec),
    },
    {
      ...base,
      displayName: 'hostile:mariadb',
      setupFiles: ['<rootDir>/test/setup/nest-first.ts', '<rootDir>/test/setup/mysql.ts'],
      testMatch: ['fuzz', 'owasp', 'crash', 'instances', 'db-faults', 'category-stream', 'redis-outage', 'concurrent-start'].map(spec),
    },
    {
      // A throwaway MariaDB whose global sql_mode has NO_BACKSLASH_ESCAPES and ANSI_QUOTES (and a non-UTC time zone,
      // latin1): the service's own session settings must win. The e2e specs of items, inventory and events run
      // against it unchanged, with the injection spec. Set up by `pretest:hostile` (tsconfig.hostile.json): a
      // global setup is loaded without moduleNameMapper.
      ...base,
      displayName: 'hostile:server-settings',
      globalSetup: '<rootDir>/dist/test/hostile/server/server.setup.js',
      globalTeardown: '<rootDir>/dist/test/hostile/server/server.teardown.js',
      setupFiles: ['<rootDir>/test/setup/nest-first.ts', '<rootDir>/test/hostile/server/env.ts'],
      testMatch: [
        ...['items', 'inventory', 'events'].map((name) => `<rootDir>/test/${name}.e2e-spec.ts`),
        spec('injection'),
      ],
    },
  ],
};
