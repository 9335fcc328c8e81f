import { describeSqliteLoadFailure, nodeVersionProblem, sqliteDriverProblem } from './sqlite-driver.js';

describe('the start-up checks of the runtime', () => {
  it('passes when better-sqlite3 loads and opens a database under this Node', () => {
    expect(sqliteDriverProblem()).toBeNull();
  });

  it('names what failed to load, in one line, and what to run', () => {
    const line = sqliteDriverProblem(() => {
      throw new Error("Cannot find module 'better-sqlite3'\nRequire stack: …");
    });
    expect(line).toBe(`better-sqlite3 cannot be loaded (Cannot find module 'better-sqlite3'): run "npm ci" with this Node, then start again.`);
    expect(describeSqliteLoadFailure('odd')).toBe('better-sqlite3 cannot be loaded (odd): run "npm ci" with this Node, then start again.');
  });

  it.each(['20.20.2', '22.12.0', '24.0.0', '24.10.9'])('refuses Node.js %s', (version) => {
    expect(nodeVersionProblem(version)).toBe(`the service needs Node.js 24.11 or newer; this is v${version} (see .nvmrc).`);
  });

  it.each(['24.11.0', '24.21.0', '25.0.0', '26.3.1', process.versions.node])('accepts Node.js %s', (version) => {
    expect(nodeVersionProblem(version)).toBeNull();
  });
});
