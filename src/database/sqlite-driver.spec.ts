import { describeSqliteLoadFailure, sqliteDriverProblem } from './sqlite-driver.js';

describe('the SQLite driver check at start', () => {
  it('passes when better-sqlite3 loads and opens a database under this Node', () => {
    expect(sqliteDriverProblem()).toBeNull();
  });

  it.each([
    "The module '/srv/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 137. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
    "Module did not self-register: '/srv/node_modules/better-sqlite3/build/Release/better_sqlite3.node'.",
  ])('names a build for another Node and the rebuild that fixes it: %#', (message) => {
    const line = sqliteDriverProblem(() => {
      throw new Error(message);
    });
    expect(line).toBe(`better-sqlite3 was built for another Node.js version than this one (${process.version}): run "npm rebuild better-sqlite3" with this Node, then start again.`);
  });

  it.each(['20.20.2', '22.12.0', '24.10.0'])('refuses Node.js %s before loading the driver (better-sqlite3 13 would crash it)', (version) => {
    let loaded = false;
    const line = sqliteDriverProblem(() => {
      loaded = true;
    }, version);
    expect({ line, loaded }).toEqual({ line: `the service needs Node.js 24.11 or newer; this is v${version} (see .nvmrc).`, loaded: false });
  });

  it('says what else went wrong in one line', () => {
    expect(describeSqliteLoadFailure(new Error("Cannot find module 'better-sqlite3'\nRequire stack: …"))).toBe(
      `better-sqlite3 cannot be loaded (Cannot find module 'better-sqlite3'): run "npm ci" with this Node, then start again.`,
    );
  });
});
