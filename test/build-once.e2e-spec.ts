import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `scripts/build-if-stale.js`, which `npm start`, `npm run cli` and the other
 * run scripts call first: it compiles only when nothing is built yet or a
 * source is newer than the last build, so an admin command does not pay for
 * a compiler run. Tried on a small project of its own (the repository's own
 * `dist/` is in use by the other specs), with the repository's TypeScript.
 */
describe('run scripts build only when a source changed', () => {
  let dir: string;
  const stamp = () => statSync(join(dir, 'dist/.tsbuildinfo')).mtimeMs;
  const buildIfStale = () => spawnSync(process.execPath, [join(dir, 'scripts/build-if-stale.js')], { encoding: 'utf8', timeout: 60_000 });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'inventory-build-'));
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'src'));
    copyFileSync(resolve('scripts/build-if-stale.js'), join(dir, 'scripts/build-if-stale.js'));
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', rootDir: '.', outDir: 'dist', types: [] } }));
    writeFileSync(join(dir, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { incremental: true, tsBuildInfoFile: 'dist/.tsbuildinfo' }, include: ['src', 'ormconfig.ts'] }));
    writeFileSync(join(dir, 'ormconfig.ts'), 'export const ormconfig = {};\n');
    writeFileSync(join(dir, 'src/main.ts'), "export const main = 'v1';\n");
    writeFileSync(join(dir, 'src/cli.ts'), "export const cli = 'v1';\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds what is not built yet', () => {
    const r = buildIfStale();
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: 'Not built yet: building…\n' });
    expect(statSync(join(dir, 'dist/src/main.js')).isFile()).toBe(true);
    expect(statSync(join(dir, 'dist/src/cli.js')).isFile()).toBe(true);
  });

  it('does nothing when the build is newer than every source', () => {
    const before = stamp();
    const r = buildIfStale();
    expect({ status: r.status, stderr: r.stderr, stdout: r.stdout }).toEqual({ status: 0, stderr: '', stdout: '' });
    expect(stamp()).toBe(before);
  });

  it('builds again when a source is newer than the build, and the change is in the output', () => {
    // The last build as if made 10 s ago, older than the edit (moving the stamp back, not the source
    // forward: a source time set by utimes can lose a microsecond and tie with the stamp).
    writeFileSync(join(dir, 'src/main.ts'), "export const main = 'v2';\n");
    const earlier = new Date(stamp() - 10_000);
    utimesSync(join(dir, 'dist/.tsbuildinfo'), earlier, earlier);
    const r = buildIfStale();
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: 'Sources changed since the last build: building…\n' });
    expect(spawnSync(process.execPath, ['-p', `require(${JSON.stringify(join(dir, 'dist/src/main.js'))}).main`], { encoding: 'utf8' }).stdout.trim()).toBe('v2');
    expect(buildIfStale().stderr).toBe('');
  });

  it('builds again when an entry the scripts start is missing, even with the last build stamp left', () => {
    rmSync(join(dir, 'dist/src'), { recursive: true });
    const r = buildIfStale();
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: 'Not built yet: building…\n' });
    expect(statSync(join(dir, 'dist/src/cli.js')).isFile()).toBe(true);
  });
});
