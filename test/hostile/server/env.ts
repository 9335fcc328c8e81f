// setupFiles of the `hostile:server-settings` project: its specs (the e2e specs
// it reuses included) target the throwaway server its global setup started,
// never the shared one; refuse to run anywhere else.
process.env.TEST_DB = 'mysql';
if (!process.env.TEST_HOSTILE_SERVER_URL) throw new Error('the hostile:server-settings project needs its global setup (TEST_HOSTILE_SERVER_URL)');
process.env.TEST_MYSQL_URL = process.env.TEST_HOSTILE_SERVER_URL;
