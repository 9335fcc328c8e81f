import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run check:foreign-writes` (in .ci/run) refuses code in src/ that
 * writes to objects other packages own. Here it reads two fixtures: one that
 * patches in every way the checker knows (each line below must be reported,
 * and the run must fail), one that writes only its own objects, data and
 * documented settings (it must pass); and src/ itself must pass.
 */
const root = join(import.meta.dirname, '..');
const check = (...files: string[]) => spawnSync(process.execPath, ['scripts/check-foreign-writes.js', ...files], { cwd: root, encoding: 'utf8' });
const PATCHES = 'test/foreign-writes/patches.fixture.ts';

/** [line of patches.fixture.ts, how that line starts, what the checker says of it]. */
const REFUSED: Array<[number, string, string]> = [
  // Assignments, delete, ++, Object's and Reflect's writers, on a package's object or through a cast.
  [8, 'AsyncResource.bind = ((fn: () => void) => fn)', 'writes AsyncResource.bind, a property another package declares'],
  [9, '(runner as unknown as { isTransactionActive:', 'writes isTransactionActive of QueryRunner, an object another package owns'],
  [10, '(runner as any).transactionDepth++;', 'writes transactionDepth of QueryRunner, an object another package owns'],
  [11, 'connection.query = (() => undefined) as', 'writes Connection.query, a property another package declares'],
  [12, "Object.defineProperty(mysql, 'createPool', {", 'Object.defineProperty on mysql2/index, an object another package owns'],
  [13, 'Object.setPrototypeOf(express.request, {});', 'Object.setPrototypeOf on Request, an object another package owns'],
  [14, "(express.application as any)['handle'] = () =>", 'writes handle of Application, an object another package owns'],
  [15, 'delete (runner as any).manager;', 'deletes manager of QueryRunner, an object another package owns'],
  [16, "Reflect.set(connection, 'threadId', 1);", 'Reflect.set on Connection, an object another package owns'],
  [17, 'Object.assign(runner, { isReleased: false });', 'Object.assign on QueryRunner, an object another package owns'],
  // A helper's parameter (with the call that passes it a package's object), aliases typed any or
  // as a project interface, casts to Record, an object literal holding the object, a proxy.
  [26, 'target[key] = value;', 'writes a computed property of QueryRunner, an object another package owns (passed in at line 38)'],
  [32, 'loose.isTransactionActive = true;', 'writes isTransactionActive of QueryRunner, an object another package owns'],
  [34, 'mirror.isTransactionActive = true;', 'writes isTransactionActive of QueryRunner, an object another package owns'],
  [36, 'proto.json = () => undefined;', 'writes json of Response, an object another package owns'],
  [37, '(express.response as unknown as Record<string,', 'writes send of Response, an object another package owns'],
  [40, '(box.runner as any).isReleased = false;', 'writes isReleased of QueryRunner, an object another package owns'],
  [42, '(made as any).isReleased = false;', 'writes isReleased of QueryRunner, an object another package owns'],
  // Destructuring and for-of/for-in targets.
  [47, '({ data: runner.data } = { data: {} });', 'writes QueryRunner.data, a property another package declares'],
  [48, '[runner.data] = [{}];', 'writes QueryRunner.data, a property another package declares'],
  [49, 'for (runner.data of [{}]) break;', 'writes QueryRunner.data, a property another package declares'],
  [50, '[(runner as any).marker] = [1];', 'writes marker of QueryRunner, an object another package owns'],
  [51, 'for ((runner as any).key in { a: 1 }) break;', 'writes key of QueryRunner, an object another package owns'],
  // A package's prototypes; Object's writers under another name, through call/apply, passed as a value.
  [56, 'Object.getPrototypeOf(connection).query = ()', 'writes query of the prototype of Connection, an object another package owns'],
  [57, '(Array.prototype as unknown as Record<string,', 'writes lastOne of Array.prototype, an object another package owns'],
  [59, "defineProperty(express.response, 'json', {", 'Object.defineProperty on Response, an object another package owns'],
  [60, 'globalThis.Object.assign(runner, { isReleased:', 'Object.assign on QueryRunner, an object another package owns'],
  [61, "Object['assign'](runner, { isReleased: false });", 'Object.assign on QueryRunner, an object another package owns'],
  [62, 'Reflect.apply(Object.assign, undefined,', 'Reflect.apply(Object.assign) on QueryRunner, an object another package owns'],
  [63, 'Object.assign.call(undefined, runner, {', 'Object.assign.call on QueryRunner, an object another package owns'],
  [64, 'Object.freeze(express.request);', 'Object.freeze on Request, an object another package owns'],
  [65, 'const writers = [Object.defineProperty];', 'passes Object.defineProperty as a value, so what it writes to cannot be checked'],
  // A package's arrays, Maps and Sets: elements and the methods that change them; casts of its driver.
  [71, 'dataSource.entityMetadatas[0] = meta;', 'writes an element of DataSource.entityMetadatas, an object another package owns'],
  [72, 'dataSource.entityMetadatas.push(meta);', 'Array.prototype.push on DataSource.entityMetadatas, an object another package owns'],
  [73, 'dataSource.entityMetadatas.splice(0, 1);', 'Array.prototype.splice on DataSource.entityMetadatas, an object another package owns'],
  [74, 'Array.prototype.push.call(dataSource.entityMetadatas,', 'Array.prototype.push.call on DataSource.entityMetadatas, an object another package owns'],
  [75, 'dataSource.entityMetadatasMap.set(meta.target,', 'Map.prototype.set on DataSource.entityMetadatasMap, an object another package owns'],
  [76, 'dataSource.entityMetadatasMap.delete(meta.target);', 'Map.prototype.delete on DataSource.entityMetadatasMap, an object another package owns'],
  [77, 'dataSource.entityMetadatasMap.clear();', 'Map.prototype.clear on DataSource.entityMetadatasMap, an object another package owns'],
  [78, "meta.dependsOn?.add('Item');", 'Set.prototype.add on EntityMetadata.dependsOn, an object another package owns'],
  [80, 'metadatas.pop();', 'Array.prototype.pop on DataSource.entityMetadatas, an object another package owns'],
  [81, '(dataSource.driver as unknown as { pool:', 'writes pool of Driver, an object another package owns'],
  [83, 'driver.pool = null;', 'writes pool of Driver, an object another package owns'],
  // A package's connection cast to a project interface, its query replaced and deleted in the function
  // it is passed to and where it was cast; a callback given the package's value.
  [97, 'connection.query = function (this:', 'writes query of what QueryRunner.connect() gives, an object another package owns (passed in at line 105)'],
  [98, 'delete (connection as', 'deletes query of what QueryRunner.connect() gives, an object another package owns (passed in at line 105)'],
  [106, 'connection.query = () => undefined;', 'writes query of what QueryRunner.connect() gives, an object another package owns'],
  [107, 'delete (connection as', 'deletes query of what QueryRunner.connect() gives, an object another package owns'],
  [109, 'later.query = () => undefined;', 'writes query of a value typed any or unknown that the project is not seen to make'],
];

describe('check:foreign-writes', () => {
  it('names lines of the fixture as they are', () => {
    const lines = readFileSync(join(root, PATCHES), 'utf8').split('\n');
    const stale = REFUSED.filter(([line, start]) => !lines[line - 1]?.trim().startsWith(start));
    expect(stale).toEqual([]);
  });

  it('reports every patch of another package, line by line, and fails', () => {
    const r = check(PATCHES);
    expect(r.status).toBe(1);
    const found = [...r.stderr.matchAll(/^test\/foreign-writes\/patches\.fixture\.ts:(\d+): (.*?): /gm)].map(([, line, what]) => [Number(line), what]);
    expect(found).toEqual(REFUSED.map(([line, , what]) => [line, what]));
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
