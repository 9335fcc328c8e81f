// Builds the service (`tsc -p tsconfig.build.json`) only when it is not built
// or a source changed since the last build: `npm ci` (prepare), `npm start`,
// `npm run cli` and the other run scripts call it first. The check compares modification times
// (about 50 ms); an up-to-date incremental tsc still takes seconds, which is
// what made every admin command slow.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
/** Written by every build (tsconfig.build.json `tsBuildInfoFile`); its time is the last build's. */
const STAMP = join(root, 'dist/.tsbuildinfo');
/** What the build reads (unit specs beside the code are not built). */
const INPUTS = ['src', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json'];
/** Entries the run scripts start. */
const OUTPUTS = ['dist/src/main.js', 'dist/src/cli.js'];

/** The newest modification time under `path`; a directory's own time moves when a file is added or removed. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return path.endsWith('.spec.ts') ? 0 : stat.mtimeMs;
  return readdirSync(path).reduce((max, entry) => Math.max(max, newest(join(path, entry))), stat.mtimeMs);
}

const complete = existsSync(STAMP) && OUTPUTS.every((file) => existsSync(join(root, file)));
if (complete && INPUTS.every((input) => newest(join(root, input)) <= statSync(STAMP).mtimeMs)) process.exit(0);
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without devDependencies (`npm ci --omit=dev`), next to a build made elsewhere or not:
  // the install itself (`--prepare`) goes on; running the service needs the build.
  if (complete) process.exit(0);
  process.stderr.write('The service is not built and TypeScript is not installed: run npm ci (with devDependencies) or npm run build.\n');
  process.exit(process.argv.includes('--prepare') ? 0 : 1);
}

// Without the entries, an incremental build trusting the old .tsbuildinfo would emit nothing.
if (!complete) rmSync(STAMP, { force: true });
process.stderr.write(complete ? 'Sources changed since the last build: building…\n' : 'Not built yet: building…\n');
try {
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
} catch {
  process.exit(1);
}
// tsc leaves .tsbuildinfo alone when no file's content changed (a touch, a checkout of the same text).
const now = new Date();
utimesSync(STAMP, now, now);
