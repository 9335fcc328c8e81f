// `npm run test:hostile`: fuzzing, the OWASP API Top 10 checks, crash safety,
// database faults, several instances, Redis outages and the docs page in a real browser. The
// service processes these start need MariaDB and Redis; unset URLs default to
// the local servers, and a server that is not there fails the run (nothing is
// skipped).
process.env.TEST_MYSQL_URL ||= 'mysql://root@127.0.0.1:3306/test';
process.env.TEST_REDIS_URL ||= 'redis://127.0.0.1:6379';

const base = {
  testEnvironment: 'node',
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
};
const spec = (name) => `<rootDir>/test/hostile/${name}.hostile-spec.ts`;

module.exports = {
  testTimeout: 300_000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  projects: [
    {
      ...base,
      displayName: 'hostile:sqlite',
      setupFiles: ['<rootDir>/test/setup/sqlite.ts'],
      testMatch: ['fuzz', 'owasp', 'crash', 'docs-browser', 'category-stream', 'concurrent-start', 'slow-clients'].map(spec),
    },
    {
      ...base,
      displayName: 'hostile:mariadb',
      setupFiles: ['<rootDir>/test/setup/mysql.ts'],
      testMatch: ['fuzz', 'owasp', 'crash', 'instances', 'db-faults', 'category-stream', 'redis-outage', 'concurrent-start'].map(spec),
    },
  ],
};
