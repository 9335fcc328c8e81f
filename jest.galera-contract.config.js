// The e2e contract suite (every MariaDB e2e spec of `npm test`) against one
// MariaDB Galera node that the global setup starts on loopback (wsrep on,
// a cluster of one): the same schema, statements, locks and retries hold on
// Galera. Run by `npm run test:galera` after the cluster suite; needs root
// (or sudo) for mariadbd, like it.
// jest.config.js lists the MariaDB project only when TEST_MYSQL_URL is set; the global setup sets it to the Galera node.
process.env.TEST_MYSQL_URL ||= 'mysql://root@127.0.0.1:3306/test';
const { default: base } = await import('./jest.config.js');
const mariadb = base.projects.find((p) => p.displayName === 'e2e:mariadb');
if (!mariadb) throw new Error('jest.config.js has no e2e:mariadb project (is TEST_MYSQL_URL set?)');

export default {
  testTimeout: base.testTimeout,
  reporters: base.reporters,
  // Compiled by `pretest:galera` (tsconfig.galera.json): a global setup is loaded without moduleNameMapper.
  globalSetup: '<rootDir>/dist/test/galera/contract.setup.js',
  globalTeardown: '<rootDir>/dist/test/galera/contract.teardown.js',
  ...mariadb,
  displayName: 'e2e:galera',
  setupFiles: ['<rootDir>/test/setup/nest-first.ts', '<rootDir>/test/setup/galera-node.ts'],
};
