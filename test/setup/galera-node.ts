// The contract run on Galera (jest.galera-contract.config.js): its global setup
// started a Galera node and pointed TEST_MYSQL_URL at it. Refuse to run the
// specs anywhere else, so that this run can never pass on the plain server.
process.env.TEST_DB = 'mysql';
if (!process.env.TEST_GALERA_NODE || process.env.TEST_MYSQL_URL !== process.env.TEST_GALERA_NODE) {
  throw new Error(`the Galera contract run must target the node its global setup started, not ${process.env.TEST_MYSQL_URL}`);
}
