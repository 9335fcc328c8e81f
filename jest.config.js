// Unit specs sit beside the code (src/**/*.spec.ts); e2e specs (test/**/*.e2e-spec.ts)
// run once on SQLite and, when TEST_MYSQL_URL is set, again on MySQL/MariaDB.
// Each e2e file boots the real service on a fresh database of its own.
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', useESM: true }] },
};

const e2e = (displayName, setup, ignore = []) => ({
  ...base,
  displayName,
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...ignore],
  setupFiles: ['<rootDir>/test/setup/nest-first.ts', setup],
});

export default {
  testTimeout: 60_000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    // The query plans are MariaDB's own: that spec runs with MariaDB only.
    e2e('e2e:sqlite', '<rootDir>/test/setup/sqlite.ts', ['/test/query-plans\\.e2e-spec\\.ts$']),
    // Specs that involve no database (the OpenAPI document's generated client, the build-once
    // script, the checks of src/'s imports and writes) run once, with SQLite.
    ...(process.env.TEST_MYSQL_URL ? [e2e('e2e:mariadb', '<rootDir>/test/setup/mysql.ts', ['/test/generated-client\\.e2e-spec\\.ts$', '/test/build-once\\.e2e-spec\\.ts$', '/test/foreign-writes\\.e2e-spec\\.ts$', '/test/keep-alive-memory\\.e2e-spec\\.ts$', '/test/imports\\.e2e-spec\\.ts$'])] : []),
  ],
};
