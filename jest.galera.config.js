// `npm run test:galera`: the service on a three-node MariaDB Galera cluster
// that the suite starts on loopback (galera-4 and rsync are installed when
// missing), and on a MariaDB primary with a binlog replica (read routing).
// Not part of `npm test`: it needs root (or sudo) for mariadbd and takes a
// few minutes.
export default {
  testTimeout: 600_000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', useESM: true }] },
  setupFiles: ['<rootDir>/test/setup/nest-first.ts', '<rootDir>/test/setup/mysql.ts'],
  testMatch: ['<rootDir>/test/galera/*.galera-spec.ts'],
};
