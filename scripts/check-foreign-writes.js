// `npm run check:foreign-writes` (run by .ci/run): fails when a file in src/
// changes an object or prototype that another package (Node.js included)
// owns. It reads the code with TypeScript's own type checker and reports:
// - an assignment (`=`, `+=`, `??=`, …), `delete`, `++` or `--` whose target
//   is a property declared outside the project (in node_modules or in
//   TypeScript's and Node's declarations), e.g. `AsyncResource.bind = …`,
//   `connection.query = …`, `runner.isTransactionActive = true`;
// - a write through a computed name on such an object (`express[name] = …`);
// - `Object.assign`, `Object.defineProperty`, `Object.defineProperties`,
//   `Object.setPrototypeOf` and `Reflect.set`/`defineProperty`/
//   `setPrototypeOf`/`deleteProperty` whose target's type is declared outside
//   the project.
// A handful of properties are settings their owners document as written by
// their users (ALLOWED below, each with where it is documented); everything
// else is refused. Exit status 1 with one line per finding, else 0.
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const root = join(import.meta.dirname, '..');

/** `Owner.property` pairs that are documented as set by the owner's users. */
const ALLOWED = new Map([
  // node:http: "response.statusCode: … the status code that will be sent to the client".
  ['ServerResponse.statusCode', 'node:http documents it as set before the headers are sent'],
  ['ServerResponse.statusMessage', 'node:http documents it as set before the headers are sent'],
  // Node: "process.exitCode: a number which will be the process exit code … can be set".
  ['Process.exitCode', 'Node documents process.exitCode as set by the program'],
  // Error objects the service creates itself (`cause`, `name`, `message`, `code`).
  ['Error.name', "the service's own errors name themselves"],
  ['Error.message', "the service's own errors"],
  ['Error.cause', "the service's own errors"],
  ['Error.stack', "the service's own errors"],
  // TypeORM: MigrationExecutor's `transaction` is its public setting (DataSource.runMigrations sets it the same way).
  ['MigrationExecutor.transaction', "TypeORM's documented setting of a migration run"],
]);

/**
 * Types whose objects are plain data the service builds and owns, declared by
 * a package only as a shape: the OpenAPI document that @nestjs/swagger's
 * createDocument returns and the service completes before serving it.
 */
const DATA_SHAPES = new Set(['OpenAPIObject', 'PathItemObject', 'OperationObject', 'ResponsesObject', 'ResponseObject', 'SchemaObject', 'ComponentsObject']);

/**
 * Express's request: one object per request, made for it and gone with it,
 * on which the service's middleware and guards leave what they found (the
 * caller, the request id, the unit of work), as passport does with `req.user`.
 * Only fields the project declares on it (its `declare global { namespace
 * Express { interface Request … } }` augmentations) pass; Express's own
 * fields are still refused.
 */
const PER_REQUEST = new Set(['Request']);

const OBJECT_WRITERS = new Map([
  ['Object', new Set(['assign', 'defineProperty', 'defineProperties', 'setPrototypeOf'])],
  ['Reflect', new Set(['set', 'defineProperty', 'setPrototypeOf', 'deleteProperty'])],
]);

const ASSIGNMENTS = new Set(
  [
    'EqualsToken',
    'PlusEqualsToken',
    'MinusEqualsToken',
    'AsteriskEqualsToken',
    'SlashEqualsToken',
    'PercentEqualsToken',
    'AsteriskAsteriskEqualsToken',
    'LessThanLessThanEqualsToken',
    'GreaterThanGreaterThanEqualsToken',
    'GreaterThanGreaterThanGreaterThanEqualsToken',
    'AmpersandEqualsToken',
    'BarEqualsToken',
    'CaretEqualsToken',
    'BarBarEqualsToken',
    'AmpersandAmpersandEqualsToken',
    'QuestionQuestionEqualsToken',
  ].map((k) => ts.SyntaxKind[k]),
);

const configFile = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
// `node scripts/check-foreign-writes.js [file…]`: the given files instead of src/ (the checker's own test).
const given = process.argv.slice(2).map((f) => join(process.cwd(), f));
const files = given.length ? given : parsed.fileNames.filter((f) => relative(root, f).split(sep)[0] === 'src');
const program = ts.createProgram(files, parsed.options);
const checker = program.getTypeChecker();

/** Whether a declaration lives outside the project: a package, or TypeScript's and Node's own declarations. */
const foreign = (declaration) => {
  const file = declaration.getSourceFile().fileName;
  return file.includes(`${sep}node_modules${sep}`) || file.includes('/node_modules/') || program.isSourceFileDefaultLibrary(declaration.getSourceFile());
};

/** The owner's name for a declared property: its class or interface. */
const ownerOf = (declaration) => {
  let node = declaration.parent;
  while (node && !ts.isClassLike(node) && !ts.isInterfaceDeclaration(node) && !ts.isTypeLiteralNode(node) && !ts.isModuleDeclaration(node)) node = node.parent;
  return node && node.name ? node.name.getText() : '?';
};

/** Whether the type of `expression` (an object being written) is declared outside the project, and by what name. */
function foreignType(expression) {
  while (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression)) expression = expression.expression;
  // An object made right there (`Object.assign(new Error(…), { code })`) is the writer's own.
  if (ts.isNewExpression(expression) || ts.isObjectLiteralExpression(expression) || ts.isArrayLiteralExpression(expression)) return null;
  const type = checker.getTypeAtLocation(expression);
  const symbol = type.getSymbol() ?? type.aliasSymbol;
  const declarations = symbol?.getDeclarations() ?? [];
  if (declarations.length && declarations.every(foreign)) return symbol.getName();
  // A value that is itself a package's export (a module namespace, a class, a function).
  const valueSymbol = checker.getSymbolAtLocation(expression);
  const resolved = valueSymbol && valueSymbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(valueSymbol) : valueSymbol;
  const valueDeclarations = resolved?.getDeclarations() ?? [];
  if (valueDeclarations.length && valueDeclarations.every(foreign)) return resolved.getName();
  return null;
}

const findings = [];
const report = (node, what) => {
  const file = node.getSourceFile();
  const { line } = file.getLineAndCharacterOfPosition(node.getStart());
  findings.push(`${relative(root, file.fileName)}:${line + 1}: ${what}: ${node.getText().split('\n')[0].slice(0, 120)}`);
};

/** A write to `target` (the left side of an assignment, the operand of delete/++/--). */
function checkTarget(target, node) {
  while (ts.isParenthesizedExpression(target) || ts.isNonNullExpression(target) || ts.isAsExpression(target) || ts.isTypeAssertionExpression(target)) target = target.expression;
  if (ts.isPropertyAccessExpression(target)) {
    const symbol = checker.getSymbolAtLocation(target.name);
    const declarations = symbol?.getDeclarations() ?? [];
    if (declarations.length && declarations.every(foreign)) {
      let owner = ownerOf(declarations[0]);
      if (owner === '?') owner = foreignType(target.expression) ?? owner;
      const key = `${owner}.${target.name.text}`;
      if (!ALLOWED.has(key) && !DATA_SHAPES.has(owner)) report(node, `writes ${key}, a property another package declares`);
      return;
    }
    // A property no declaration knows (added by the write itself), or one a cast declared here: refused when the
    // object, as it is before any cast, is a package's.
    const owner = foreignType(target.expression);
    const augmented = declarations.length && PER_REQUEST.has(owner) && declarations.every((d) => ts.isInterfaceDeclaration(d.parent) && d.parent.name.text === owner);
    if (owner && !augmented && !isOwnCollection(target.expression) && !DATA_SHAPES.has(owner)) {
      report(node, `${declarations.length ? 'writes' : 'adds'} ${target.name.text} ${declarations.length ? 'of' : 'to'} ${owner}, an object another package owns`);
    }
  } else if (ts.isElementAccessExpression(target)) {
    const owner = foreignType(target.expression);
    if (owner && !isOwnCollection(target.expression) && !DATA_SHAPES.has(owner)) report(node, `writes a computed property of ${owner}, an object another package owns`);
  }
}

/** Arrays and records (index signatures) are the writer's own data, whatever declares their type. */
function isOwnCollection(expression) {
  while (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression)) expression = expression.expression;
  const type = checker.getTypeAtLocation(expression);
  if (checker.isArrayType(type) || checker.isTupleType(type)) return true;
  const name = type.getSymbol()?.getName() ?? type.aliasSymbol?.getName();
  return name === 'Record' || type.getStringIndexType() !== undefined || type.getNumberIndexType() !== undefined;
}

function visit(node) {
  if (ts.isBinaryExpression(node) && ASSIGNMENTS.has(node.operatorToken.kind)) checkTarget(node.left, node);
  else if (ts.isDeleteExpression(node)) checkTarget(node.expression, node);
  else if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(node.operator)) {
    checkTarget(node.operand, node);
  } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ts.isIdentifier(node.expression.expression)) {
    const methods = OBJECT_WRITERS.get(node.expression.expression.text);
    if (methods?.has(node.expression.name.text) && node.arguments.length) {
      const owner = foreignType(node.arguments[0]);
      if (owner && !(node.expression.name.text === 'assign' && ts.isObjectLiteralExpression(node.arguments[0]))) {
        report(node, `${node.expression.expression.text}.${node.expression.name.text} on ${owner}, an object another package owns`);
      }
    }
  }
  ts.forEachChild(node, visit);
}

for (const file of program.getSourceFiles()) {
  if (files.includes(file.fileName)) visit(file);
}

if (findings.length) {
  process.stderr.write(`${findings.join('\n')}\n\n${findings.length} write(s) to objects other packages own (scripts/check-foreign-writes.js says what counts).\n`);
  process.exit(1);
}
process.stdout.write(`check:foreign-writes: no file of ${files.length}${given.length ? '' : ' in src/'} writes to another package's objects or prototypes\n`);
