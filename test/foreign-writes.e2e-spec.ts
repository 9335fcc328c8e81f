import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * `npm run check:foreign-writes` (in .ci/run) refuses code in src/ that
 * writes to objects other packages own. Here it reads two fixtures: one that
 * patches in every way the checker knows (each line must be reported, and
 * the run must fail), one that writes only its own objects, data and
 * documented settings (it must pass); and src/ itself must pass.
 */
const root = join(import.meta.dirname, '..');
const check = (...files: string[]) => spawnSync(process.execPath, ['scripts/check-foreign-writes.js', ...files], { cwd: root, encoding: 'utf8' });

describe('check:foreign-writes', () => {
  it('reports every patch of another package, line by line, and fails', () => {
    const r = check('test/foreign-writes/patches.fixture.ts');
    expect(r.status).toBe(1);
    const lines = [...r.stderr.matchAll(/patches\.fixture\.ts:(\d+): (.*?):/g)].map(([, line, what]) => [Number(line), what]);
    expect(lines).toEqual([
      [8, 'writes AsyncResource.bind, a property another package declares'],
      [9, 'writes isTransactionActive of QueryRunner, an object another package owns'],
      [10, 'writes transactionDepth of QueryRunner, an object another package owns'],
      [11, 'writes Connection.query, a property another package declares'],
      [12, expect.stringMatching(/^Object\.defineProperty on .*mysql2.*, an object another package owns$/)],
      [13, 'Object.setPrototypeOf on Request, an object another package owns'],
      [14, 'writes handle of Application, an object another package owns'],
      [15, 'deletes manager of QueryRunner, an object another package owns'],
      [16, 'Reflect.set on Connection, an object another package owns'],
      [17, 'Object.assign on QueryRunner, an object another package owns'],
    ]);
  }, 60_000);

  it("lets the writer's own objects, data and documented settings through", () => {
    const r = check('test/foreign-writes/own.fixture.ts');
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  }, 60_000);

  it('finds no such write in src/', () => {
    const r = check();
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout).toMatch(/^check:foreign-writes: no file of \d+ in src\/ writes/);
  }, 60_000);
});
