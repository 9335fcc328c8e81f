import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * `npm run check:imports` (in .ci/run) runs dependency-cruiser with
 * .dependency-cruiser.cjs on src/. It must pass on src/ as it is, and fail on
 * copies of src/ (in a temporary directory, never in src/) to which were
 * added an import up each layer boundary, an import between two features
 * kept apart, a file in no layer (importing, imported, or alone), and a
 * cycle: naming each of them.
 */
const root = join(import.meta.dirname, '..');
const CONFIG = '.dependency-cruiser.cjs';
const cruise = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'), 'src', '--config', CONFIG, ...args], { cwd, encoding: 'utf8' });

/** The violations the check's report names: [rule, from, to] for an import, [rule, from, …, back to from] for a cycle. */
function violations(report: string): string[][] {
  const found: string[][] = [];
  for (const line of report.split('\n')) {
    const start = /^ {2}error ([\w-]+): (.*)$/.exec(line);
    if (start) found.push([start[1], start[2]]);
    else if (/^ {6}\S/.test(line)) found[found.length - 1].push(line);
  }
  return found.map(([rule, ...text]) => [rule, ...text.join(' ').split('→').map((path) => path.trim())]);
}

describe('check:imports', () => {
  it('finds src/ as it is within its rules', () => {
    const r = cruise(root);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout).toMatch(/no dependency violations found \(\d+ modules, \d+ dependencies cruised\)/);
  }, 60_000);

  describe('on a copy of src/', () => {
    const copies: string[] = [];
    afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

    /** A copy of src/ and the check's config in a temporary directory, with a line added at the end of each file named. */
    function copyWith(added: Record<string, string>): string {
      const dir = mkdtempSync(join(tmpdir(), 'check-imports-'));
      copies.push(dir);
      cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
      for (const file of [CONFIG, 'tsconfig.json']) copyFileSync(join(root, file), join(dir, file));
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
      for (const [file, line] of Object.entries(added)) {
        mkdirSync(dirname(join(dir, 'src', file)), { recursive: true });
        appendFileSync(join(dir, 'src', file), `\n${line}\n`);
      }
      return dir;
    }

    it('fails on an import up each layer boundary, between features kept apart, from or into a folder in no layer, and on a file alone in no layer, naming each', () => {
      const r = cruise(
        copyWith({
          'errors.ts': "import './database/case-key.js';", // base → database
          'database/case-key.ts': "import type { Page } from '../pagination/page.js';", // database → kernel, a type only
          'pagination/page-query.dto.ts': "import '../auth/caller.js';", // kernel → features
          'inventory/pick.ts': "import '../bootstrap.js';", // features → edge
          'events/events.service.ts': "import '../inventory/inventory.responses.js';", // events → inventory: kept apart
          'health/health.controller.ts': "import '../catalog/item.responses.js';", // a controller is its feature's: health → catalog, kept apart
          'metrics/metrics.controller.ts': "import '../auth/guards.js';", // and the metrics' route is the kernel's: kernel → features
          'database/transactions.ts': "import '../pagination/page-query.dto.js';", // database → kernel, in a file of the transaction runner
          'extra/extra.ts': "import '../errors.js';", // a folder in no layer
          'catalog/items.service.ts': "import { LOTS } from '../sql/lots.js'; void LOTS;", // into a file in no layer that imports nothing
          'sql/lots.ts': "export const LOTS = 'lots';",
          'alone/alone.ts': 'export const ALONE = 1;', // in no layer, importing nothing and imported by nothing
        }),
      );
      expect(r.status).not.toBe(0);
      const found = violations(r.stdout);
      expect(r.stdout).toContain(`x ${found.length} dependency violations (${found.length} errors, 0 warnings)`);
      // Imports up make cycles too (bootstrap.ts imports, through app.module.ts, the whole of inventory/): only the imports are compared here.
      expect(found.filter(([rule]) => rule !== 'no-circular').sort()).toEqual(
        [
          ['base-imports-up', 'src/errors.ts', 'src/database/case-key.ts'],
          ['database-imports-up', 'src/database/case-key.ts', 'src/pagination/page.ts'],
          ['database-imports-up', 'src/database/transactions.ts', 'src/pagination/page-query.dto.ts'],
          ['features-apart', 'src/events/events.service.ts', 'src/inventory/inventory.responses.ts'],
          ['features-apart', 'src/health/health.controller.ts', 'src/catalog/item.responses.ts'],
          ['features-imports-up', 'src/inventory/pick.ts', 'src/bootstrap.ts'],
          ['in-a-layer', 'src/extra/extra.ts', 'src/errors.ts'],
          ['into-no-layer', 'src/catalog/items.service.ts', 'src/sql/lots.ts'],
          ['alone-in-no-layer', 'src/alone/alone.ts'],
          ['kernel-imports-up', 'src/metrics/metrics.controller.ts', 'src/auth/guards.ts'],
          ['kernel-imports-up', 'src/pagination/page-query.dto.ts', 'src/auth/caller.ts'],
        ].sort(),
      );
    }, 60_000);

    it('fails on a cycle within a layer, naming it and the cycles through it', () => {
      // page.ts imports page-request.ts; keyset.ts and cursor.ts import both.
      const r = cruise(copyWith({ 'pagination/page-request.ts': "import './page.js';" }));
      expect(r.status).not.toBe(0);
      const found = violations(r.stdout);
      expect(found).toContainEqual(['no-circular', 'src/pagination/page-request.ts', 'src/pagination/page.ts', 'src/pagination/page-request.ts']);
      expect(found.length).toBeGreaterThan(1);
      for (const [rule, ...cycle] of found) {
        expect(rule).toBe('no-circular');
        expect(cycle).toEqual(expect.arrayContaining(['src/pagination/page-request.ts', 'src/pagination/page.ts']));
      }
    }, 60_000);
  });
});
