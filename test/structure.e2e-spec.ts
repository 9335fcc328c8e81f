import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The shape docs/architecture.md promises, beyond what `check:imports`
 * (dependency-cruiser, which sees only src/'s own imports) can check:
 * services and controllers hold no SQL text and no manager, import nothing
 * of TypeORM and call none of its statement APIs; repositories take no
 * request DTO; every feature folder with entities has its repositories; no
 * file of src/ is over 300 lines. Each rule is also tried on made-up files,
 * so that a rule that could never fail is seen.
 */
const root = join(import.meta.dirname, '..');
const MAX_LINES = 300;

type Files = Record<string, string>;

/** Every .ts file of src/ but the unit specs, by its path from the repository's root. */
function sourceFiles(): Files {
  const files: Files = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) files[relative(root, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(join(root, 'src'));
  return files;
}

const SQL_WORD = /\b(SELECT|INSERT|UPDATE|DELETE)\b/;
/** What reaches the database from a service or a controller: TypeORM imported, a manager, a statement API. */
const DATABASE_REACH = [
  { what: "an import of 'typeorm'", pattern: /from\s+'typeorm(\/[^']*)?'/ },
  { what: 'a manager', pattern: /\.manager\b|\bEntityManager\b/ },
  { what: "TypeORM's statement APIs", pattern: /\b(createQueryBuilder|getRepository)\s*\(|\.query\s*\(/ },
];
const DTO_IMPORT = /from\s+'[^']*\.dto\.js'/;

/** Each broken rule as one line: the file and what it breaks. */
function problems(files: Files): string[] {
  const found: string[] = [];
  const paths = Object.keys(files).sort();
  for (const path of paths) {
    const text = files[path];
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) found.push(`${path}: ${lines} lines, over ${MAX_LINES}`);
    if (/\.(service|controller)\.ts$/.test(path)) {
      text.split('\n').forEach((line, i) => {
        if (SQL_WORD.test(line)) found.push(`${path}:${i + 1}: SQL text in a service or controller`);
        for (const { what, pattern } of DATABASE_REACH) if (pattern.test(line)) found.push(`${path}:${i + 1}: ${what} in a service or controller`);
      });
    }
    if (path.endsWith('.repository.ts')) {
      text.split('\n').forEach((line, i) => {
        if (DTO_IMPORT.test(line)) found.push(`${path}:${i + 1}: a repository imports a request DTO`);
      });
    }
  }
  const folders = new Set(paths.map((p) => /^src\/([^/]+)\//.exec(p)?.[1]).filter((f): f is string => !!f && f !== 'database'));
  for (const folder of [...folders].sort()) {
    const own = paths.filter((p) => p.startsWith(`src/${folder}/`));
    if (own.some((p) => /\.entit(y|ies)\.ts$/.test(p)) && !own.some((p) => p.endsWith('.repository.ts'))) found.push(`src/${folder}/: entities and no repository`);
  }
  return found;
}

describe('the shape of src/', () => {
  it('holds every rule', () => {
    expect(problems(sourceFiles())).toEqual([]);
  });

  it('finds each rule broken in made-up files', () => {
    const fine = { 'src/things/things.service.ts': 'export class ThingsService {}\n', 'src/things/things.repository.ts': 'export class ThingsRepository {}\n' };
    expect(problems(fine)).toEqual([]);
    expect(
      problems({
        'src/things/things.service.ts': "import { DataSource } from 'typeorm';\nconst sql = 'SELECT 1';\nthis.tx.run((ctx) => ctx.manager.query(sql));\n",
        'src/things/things.controller.ts': "import type { EntityManager } from 'typeorm/entity-manager/EntityManager.js';\nm.createQueryBuilder(Thing, 't');\n",
        'src/things/things.repository.ts': "import type { ThingDto } from './thing.dto.js';\n",
        'src/things/long.ts': 'x\n'.repeat(MAX_LINES + 1),
        'src/stored/stored.entities.ts': 'export class Stored {}\n',
      }),
    ).toEqual([
      "src/things/long.ts: 301 lines, over 300",
      "src/things/things.controller.ts:1: an import of 'typeorm' in a service or controller",
      'src/things/things.controller.ts:1: a manager in a service or controller',
      "src/things/things.controller.ts:2: TypeORM's statement APIs in a service or controller",
      'src/things/things.repository.ts:1: a repository imports a request DTO',
      "src/things/things.service.ts:1: an import of 'typeorm' in a service or controller",
      'src/things/things.service.ts:2: SQL text in a service or controller',
      'src/things/things.service.ts:3: a manager in a service or controller',
      "src/things/things.service.ts:3: TypeORM's statement APIs in a service or controller",
      'src/stored/: entities and no repository',
    ]);
  });
});
