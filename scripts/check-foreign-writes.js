// `npm run check:foreign-writes` (run by .ci/run): fails when a file in src/
// changes an object or prototype that another package (Node.js and the
// language's built-ins included) owns. It reads the code with TypeScript's own
// type checker.
//
// What is a write: an assignment (`=`, `+=`, `??=`, …), `delete`, `++`/`--`,
// a destructuring assignment's targets (`[o.x] = …`, `({ a: o.x } = …)`), a
// `for (o.x of …)`/`for (o.x in …)` target; the language's functions that
// change the object they are given (Object.assign, defineProperty,
// defineProperties, setPrototypeOf, freeze, seal, preventExtensions, and
// Reflect.set, defineProperty, setPrototypeOf, deleteProperty,
// preventExtensions), found by their declarations in TypeScript's library
// wherever they are reached (`Object.assign`, `globalThis.Object.assign`,
// `Object['assign']`, `const { assign } = Object`, `.call`/`.apply`/`.bind`,
// `Reflect.apply`); and the methods that change a collection (an Array's
// push, splice, sort, …, a Map's or Set's set, add, delete, clear).
//
// Whose object is written: the checker follows the written value back to where
// it came from (its origin), through variables and their assignments, casts,
// parentheses, `await`, destructuring, a project function's parameters (to the
// arguments at its calls) and results (to what it returns), and a project
// object's properties (to what is stored in them). A value is another
// package's when it is:
// - a package's export or a global (a module, `express`, `Object`, `process`);
// - read from a package's object (`dataSource.entityMetadatas`,
//   `express.response`, `Array.prototype`), or given by a method of one
//   (`runner.connect()`), unless what is given is plain data of the project's
//   own types (the entities a repository loads);
// - the prototype of such a value (`Object.getPrototypeOf(connection)`) or of
//   anything but a project class's instance;
// - of a type a package declares, where the origin says no more (a parameter
//   Nest or Express fills, a property read from an unknown place).
// A cast changes none of this: a package's object cast to `any`, to
// `Record<…>` or to an interface of the project's is still the package's. A
// value typed `any` or `unknown` whose origin the checker cannot see (a caught
// error, a package's `any`) is not written either: only what the project is
// seen to make is its own. The project's own values are literals, functions,
// objects it makes with `new`, its classes and their instances, what the
// language's functions make for it (`JSON.parse`, `Object.create`), and
// arrays, Maps and records that come from any of these (a collection's type
// alone makes it the project's only where nothing shows where it came from).
// Two kinds of objects are the project's though a package declares them: the
// OpenAPI document it completes (DATA_SHAPES) and the fields it declares on
// Express's request (PER_REQUEST).
//
// What is refused:
// - a write to a property a package declares (`AsyncResource.bind = …`,
//   `runner.isTransactionActive = true`), whoever made the object, except a
//   handful of settings their owners document as written by their users
//   (ALLOWED below, each with where it is documented);
// - any other write (a property the project declares in a cast, one it adds,
//   a computed or indexed one, a collection's method) to a value that is a
//   package's, or typed `any`/`unknown` with no origin in the project.
//
// What it cannot see, and so lets through:
// - a package's object kept in a collection typed wider than it: an element
//   read out of the project's own array, Map or Set counts by its type
//   (`const list: object[] = [runner]` loses the runner);
// - a value typed `object`, or with a project type, whose origin is out of
//   sight: a parameter of an exported function that no checked file calls, a
//   callback's parameter that the package's signature types so;
// - `this` in a plain function called on a package's object
//   (`function f(this: Mine) { this.x = 1 }; f.call(runner)`);
// - writes a package's function makes for the caller (lodash's `set`,
//   `util.inherits`), `eval`, `new Function`, and methods called on `any`.
// It is coarse the other way too: a property holds whatever any code stores
// in it on any object of its type, a parameter whatever any call passes, and
// a package's method is taken to give its own objects, so a copy such as
// `dataSource.entityMetadatas.slice()` counts as TypeORM's (`[...list]` is
// the project's).
//
// Exit status 1 with one line per finding, 2 for a file that is not there, else 0.
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
 * Declaration files whose types describe plain data the service builds and
 * owns, declared by a package only as a shape: the OpenAPI document that
 * @nestjs/swagger's createDocument returns and the service completes before
 * serving it (OpenAPIObject, its paths, operations, responses, schemas).
 */
const DATA_SHAPES = ['@nestjs/swagger/dist/interfaces/open-api-spec.interface.d.ts'];
const dataShape = (declaration) => DATA_SHAPES.some((file) => declaration.getSourceFile().fileName.endsWith(`/node_modules/${file}`));

/**
 * Express's request: one object per request, made for it and gone with it,
 * on which the service's middleware and guards leave what they found (the
 * caller, the request id, the unit of work), as passport does with `req.user`.
 * Only fields the project declares on it (its `declare module
 * 'express-serve-static-core' { interface Request … }` augmentations) pass;
 * Express's own fields are still refused.
 */
const PER_REQUEST = new Set(['Request']);

/** The language's functions that change the object given as their first argument (by their declarations in lib). */
const OBJECT_WRITERS = new Map([
  ['ObjectConstructor', new Set(['assign', 'defineProperty', 'defineProperties', 'setPrototypeOf', 'freeze', 'seal', 'preventExtensions'])],
  ['Reflect', new Set(['set', 'defineProperty', 'setPrototypeOf', 'deleteProperty', 'preventExtensions'])],
]);

/** The language's methods that change the collection they are called on. */
const COLLECTION_WRITERS = new Map([
  ['Array', new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin'])],
  ['Map', new Set(['set', 'delete', 'clear'])],
  ['Set', new Set(['add', 'delete', 'clear'])],
  ['WeakMap', new Set(['set', 'delete'])],
  ['WeakSet', new Set(['add', 'delete'])],
]);

/** The language's functions that give an object's prototype. */
const PROTOTYPE_READERS = new Map([
  ['ObjectConstructor', new Set(['getPrototypeOf'])],
  ['Reflect', new Set(['getPrototypeOf'])],
]);

/** The language's functions whose result is read out of their first argument. */
const ARGUMENT_READERS = new Map([
  ['ObjectConstructor', new Set(['getOwnPropertyDescriptor', 'getOwnPropertyDescriptors', 'values', 'entries'])],
  ['Reflect', new Set(['get', 'getOwnPropertyDescriptor'])],
]);

/** The language's collections: their type alone makes a value data, where nothing says where it came from. */
const COLLECTIONS = new Set(['Array', 'ReadonlyArray', 'Map', 'ReadonlyMap', 'Set', 'ReadonlySet', 'WeakMap', 'WeakSet', 'Record']);

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
/** Assignments whose result can be the right side itself (the others compute a number, a string or a boolean). */
const VALUE_ASSIGNMENTS = new Set(['EqualsToken', 'BarBarEqualsToken', 'AmpersandAmpersandEqualsToken', 'QuestionQuestionEqualsToken'].map((k) => ts.SyntaxKind[k]));

const configFile = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
// `node scripts/check-foreign-writes.js [file…]`: the given files instead of src/ (the checker's own test).
const given = process.argv.slice(2).map((f) => join(process.cwd(), f));
const files = given.length ? given : parsed.fileNames.filter((f) => relative(root, f).split(sep)[0] === 'src');
const program = ts.createProgram(files, parsed.options);
const checker = program.getTypeChecker();
const missing = files.filter((f) => !program.getSourceFile(f));
if (missing.length) {
  process.stderr.write(`check:foreign-writes: no such file: ${missing.map((f) => relative(process.cwd(), f)).join(', ')}\n`);
  process.exit(2);
}

/** Whether a declaration lives outside the project: a package, or TypeScript's and Node's own declarations. */
const foreign = (declaration) => {
  const file = declaration.getSourceFile();
  return file.fileName.includes(`${sep}node_modules${sep}`) || file.fileName.includes('/node_modules/') || program.isSourceFileDefaultLibrary(file);
};
const inLib = (declaration) => program.isSourceFileDefaultLibrary(declaration.getSourceFile());

/** The owner's name for a declared property: its class or interface. */
const ownerOf = (declaration) => {
  let node = declaration.parent;
  while (node && !ts.isClassLike(node) && !ts.isInterfaceDeclaration(node) && !ts.isTypeLiteralNode(node) && !ts.isModuleDeclaration(node)) node = node.parent;
  return node && node.name ? node.name.getText() : '?';
};

/** What stands around a value without changing which object it is: parentheses, casts, `!`, `satisfies` (and `await`, for origins). */
function strip(expression, awaits = false) {
  for (;;) {
    if (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isTypeAssertionExpression(expression) || ts.isNonNullExpression(expression) || ts.isSatisfiesExpression(expression)) {
      expression = expression.expression;
    } else if (awaits && ts.isAwaitExpression(expression)) expression = expression.expression;
    else return expression;
  }
}

const resolve = (symbol) => (symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

/** The symbol of the property an access names (`o.x`, `o['x']`), if the checker knows one. */
function propertySymbol(access) {
  if (ts.isPropertyAccessExpression(access)) return checker.getSymbolAtLocation(access.name);
  const key = access.argumentExpression;
  if (ts.isStringLiteralLike(key) || ts.isNumericLiteral(key)) return checker.getSymbolAtLocation(key) ?? checker.getTypeAtLocation(access.expression).getProperty(key.text);
  return undefined;
}

// ---------------------------------------------------------------------------
// The language's functions, by their declarations in TypeScript's library.

/** `Owner.name` of a function declared in the library (`ObjectConstructor.assign`, `Array.push`, `Reflect.set`), else null. */
function libMember(symbol) {
  for (const declaration of symbol?.declarations ?? []) {
    if (!inLib(declaration)) continue;
    let owner = declaration.parent;
    if (ts.isModuleBlock(owner)) owner = owner.parent;
    if ((ts.isInterfaceDeclaration(owner) || ts.isModuleDeclaration(owner)) && ts.isIdentifier(owner.name)) return { owner: owner.name.text, name: symbol.getName() };
  }
  return null;
}

/**
 * The library function `expression` refers to, following the project's
 * aliases of it (`const f = Object.assign`, `const { defineProperty } =
 * Object`), or null.
 */
function libFunction(expression, depth = 0) {
  expression = strip(expression);
  let symbol;
  if (ts.isIdentifier(expression)) symbol = checker.getSymbolAtLocation(expression);
  else if (ts.isPropertyAccessExpression(expression) || ts.isElementAccessExpression(expression)) symbol = propertySymbol(expression);
  symbol = resolve(symbol);
  if (!symbol || depth > 8) return null;
  const member = libMember(symbol);
  if (member) return member;
  const declaration = symbol.valueDeclaration;
  if (!declaration || foreign(declaration)) return null;
  if (ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name) && declaration.initializer) return libFunction(declaration.initializer, depth + 1);
  if (ts.isBindingElement(declaration) && ts.isObjectBindingPattern(declaration.parent) && ts.isVariableDeclaration(declaration.parent.parent) && declaration.parent.parent.initializer) {
    const key = declaration.propertyName ?? declaration.name;
    if (!ts.isIdentifier(key) && !ts.isStringLiteral(key)) return null;
    return libMember(checker.getTypeAtLocation(declaration.parent.parent.initializer).getProperty(key.text));
  }
  return null;
}

const isIn = (table, member) => Boolean(member && table.get(member.owner)?.has(member.name));
const displayName = (member) => (member.owner === 'ObjectConstructor' ? `Object.${member.name}` : member.owner === 'Reflect' ? `Reflect.${member.name}` : `${member.owner}.prototype.${member.name}`);

// ---------------------------------------------------------------------------
// An index of the project's code: what is assigned to its variables and
// properties, where its functions are called, and which functions are called
// from nowhere the checker cannot see.

/** The project's source files the program reads (the checked ones and everything of the project they import). */
const projectFiles = program.getSourceFiles().filter((file) => !foreign(file) && !file.isDeclarationFile);
/** symbol → [{ expression, read }]: values assigned to a variable or a property after its declaration (`read`: a part of it, by destructuring or for-of). */
const assigned = new Map();
/** function-like declaration → the calls (and `new`s) that reach it. */
const callsOf = new Map();
/** Symbols referred to otherwise than by calling them (passed, stored, exported). */
const escapes = new Set();

const addTo = (map, key, value) => (map.has(key) ? map.get(key) : map.set(key, []).get(key)).push(value);

/** The identifiers and property accesses a destructuring assignment (`[a, o.x] = …`, `({ a: o.x } = …)`) writes to. */
function destructuredTargets(pattern, out = []) {
  pattern = strip(pattern);
  if (ts.isArrayLiteralExpression(pattern)) {
    for (const element of pattern.elements) destructuredTargets(ts.isSpreadElement(element) ? element.expression : element, out);
  } else if (ts.isObjectLiteralExpression(pattern)) {
    for (const property of pattern.properties) {
      if (ts.isPropertyAssignment(property)) destructuredTargets(property.initializer, out);
      else if (ts.isShorthandPropertyAssignment(property)) out.push(property.name);
      else if (ts.isSpreadAssignment(property)) destructuredTargets(property.expression, out);
    }
  } else if (ts.isBinaryExpression(pattern) && pattern.operatorToken.kind === ts.SyntaxKind.EqualsToken) destructuredTargets(pattern.left, out);
  else if (!ts.isOmittedExpression(pattern)) out.push(pattern);
  return out;
}

const targetSymbol = (target) => {
  target = strip(target);
  if (ts.isIdentifier(target)) return checker.getSymbolAtLocation(target);
  if (ts.isShorthandPropertyAssignment(target.parent) && target.parent.name === target) return checker.getShorthandAssignmentValueSymbol(target.parent);
  if (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) return propertySymbol(target);
  return undefined;
};
const isCallee = (node) => {
  const up = ts.isPropertyAccessExpression(node.parent) && node.parent.name === node ? node.parent : node;
  return (ts.isCallExpression(up.parent) || ts.isNewExpression(up.parent)) && up.parent.expression === up;
};

/** Whether an object or array literal is (part of) the left side of a destructuring assignment or a for-of's target. */
function isPattern(node) {
  for (; node.parent; node = node.parent) {
    const parent = node.parent;
    if (ts.isBinaryExpression(parent)) return parent.left === node && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
    if ((ts.isForOfStatement(parent) || ts.isForInStatement(parent)) && parent.initializer === node) return true;
    if (!(ts.isObjectLiteralExpression(parent) || ts.isArrayLiteralExpression(parent) || ts.isPropertyAssignment(parent) || ts.isSpreadElement(parent) || ts.isSpreadAssignment(parent) || ts.isParenthesizedExpression(parent))) return false;
  }
  return false;
}

function index(node) {
  if (ts.isBinaryExpression(node) && VALUE_ASSIGNMENTS.has(node.operatorToken.kind)) {
    const left = strip(node.left);
    if (ts.isObjectLiteralExpression(left) || ts.isArrayLiteralExpression(left)) {
      for (const target of destructuredTargets(left)) {
        const symbol = targetSymbol(target);
        if (symbol) addTo(assigned, symbol, { expression: node.right, read: true });
      }
    } else {
      const symbol = targetSymbol(left);
      if (symbol) addTo(assigned, symbol, { expression: node.right, read: false });
    }
  } else if ((ts.isForOfStatement(node) || ts.isForInStatement(node)) && !ts.isVariableDeclarationList(node.initializer)) {
    for (const target of destructuredTargets(node.initializer)) {
      const symbol = targetSymbol(target);
      if (symbol) addTo(assigned, symbol, { expression: node.expression, read: true });
    }
  } else if (ts.isObjectLiteralExpression(node) && !isPattern(node)) {
    // What an object literal puts in the properties of the interface it is written for (`const deps: Deps = { conn }`).
    const type = checker.getContextualType(node);
    for (const property of type ? node.properties : []) {
      if (!(ts.isPropertyAssignment(property) || ts.isShorthandPropertyAssignment(property)) || !property.name || ts.isComputedPropertyName(property.name)) continue;
      const symbol = type.getProperty(property.name.text);
      if (symbol && !symbol.getDeclarations()?.some(foreign)) addTo(assigned, symbol, { expression: ts.isPropertyAssignment(property) ? property.initializer : property.name, read: false });
    }
  } else if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
    const declaration = checker.getResolvedSignature(node)?.declaration;
    if (declaration && !ts.isJSDocSignature(declaration)) addTo(callsOf, declaration, node);
  } else if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && !(ts.isDeclaration(node.parent) && node.parent.name === node) && !isCallee(node)) {
    const symbol = resolve(checker.getSymbolAtLocation(node));
    if (symbol) escapes.add(symbol);
  }
  ts.forEachChild(node, index);
}
for (const file of projectFiles) index(file);

const hasModifier = (node, kind) => Boolean(ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === kind));

/**
 * Whether every call of a function is in the index: it is not exported, not
 * a class's method others may call, and never referred to but to call it.
 */
function callsAllSeen(fn) {
  let named = fn;
  if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(fn.parent) && fn.parent.initializer === fn) named = fn.parent;
  if (ts.isVariableDeclaration(named)) {
    if (!ts.isIdentifier(named.name) || hasModifier(named.parent.parent, ts.SyntaxKind.ExportKeyword)) return false;
  } else if (ts.isFunctionDeclaration(named)) {
    if (!named.name || hasModifier(named, ts.SyntaxKind.ExportKeyword)) return false;
  } else if (ts.isMethodDeclaration(named)) {
    if (!hasModifier(named, ts.SyntaxKind.PrivateKeyword) && !ts.isPrivateIdentifier(named.name)) return false;
  } else return false;
  const symbol = checker.getSymbolAtLocation(named.name);
  return Boolean(symbol) && !escapes.has(symbol);
}

// ---------------------------------------------------------------------------
// Origins. An origin is OWN (the project's), OPAQUE (typed any/unknown, with
// no origin the checker can see) or { foreign: name, via } (another
// package's; `via`: where it was passed to a parameter).

const OWN = Object.freeze({ own: true });
const OPAQUE = Object.freeze({ opaque: true });
const foreignValue = (name, via) => ({ foreign: name, via });

/** A value that may be any of several: a package's if any of them is, else opaque if any is, else the project's. */
function combine(origins) {
  return origins.find((o) => o.foreign) ?? origins.find((o) => o.opaque) ?? OWN;
}

/** The name of a package's declared type (`QueryRunner`, `Request`), or null when it is the language's collection or no named type. */
function foreignTypeName(type) {
  const symbol = type.aliasSymbol ?? type.getSymbol();
  const declarations = symbol?.getDeclarations() ?? [];
  if (!declarations.length || !declarations.some(foreign)) return null;
  const name = symbol.getName();
  if (COLLECTIONS.has(name) || name.startsWith('__')) return null;
  return prettyName(symbol);
}
/** A module's name without its path (`mysql2/index`), any other symbol's as it is. */
function prettyName(symbol) {
  const name = symbol.getName();
  const path = /^"(.*)"$/.exec(name)?.[1];
  return path ? path.split('/node_modules/').pop() : name;
}

/** What a value's type alone says of its owner, where nothing shows where the value came from. */
function typeOrigin(type) {
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return OPAQUE;
  // A promise counts as what it gives (`await` is looked through).
  const awaited = checker.getAwaitedType(type);
  if (awaited && awaited !== type) return typeOrigin(awaited);
  if (type.isUnion() || type.isIntersection()) return combine(type.types.map(typeOrigin));
  if (type.flags & ts.TypeFlags.TypeParameter) {
    const constraint = checker.getBaseConstraintOfType(type);
    return constraint && constraint !== type ? typeOrigin(constraint) : OPAQUE;
  }
  // Strings, numbers, null, …: nothing to write to; `object` (no declaration at all): data.
  if (!(type.flags & ts.TypeFlags.Object)) return OWN;
  if (checker.isArrayType(type) || checker.isTupleType(type)) return OWN;
  const symbol = type.aliasSymbol ?? type.getSymbol();
  const declarations = symbol?.getDeclarations() ?? [];
  if (declarations.some(foreign)) {
    const name = symbol.getName();
    if (COLLECTIONS.has(name) || declarations.every(dataShape)) return OWN;
    // An anonymous object type of the language's (`{}`): data.
    if (name.startsWith('__') && declarations.every(inLib)) return OWN;
    return foreignValue(name.startsWith('__') ? checker.typeToString(type) : prettyName(symbol));
  }
  return OWN;
}
const typeOriginAt = (node) => typeOrigin(checker.getTypeAtLocation(node));

/** Whether a call gives plain data of the project's: a primitive, an instance of a project type, or an array of those. */
function projectData(type) {
  if (type.isUnion()) return type.types.every(projectData);
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.TypeParameter)) return false;
  if (!(type.flags & ts.TypeFlags.Object) && !(type.flags & ts.TypeFlags.NonPrimitive)) return true;
  if (checker.isArrayType(type) || checker.isTupleType(type)) return checker.getTypeArguments(type).every(projectData);
  const declarations = (type.aliasSymbol ?? type.getSymbol())?.getDeclarations() ?? [];
  return declarations.length > 0 && !declarations.some(foreign);
}

/** Whether `expression` names a package's module, class or global directly (`mysql`, `JSON`, `globalThis.Object`): calling its functions reads none of its instances. */
function staticOwner(expression) {
  expression = strip(expression);
  if (ts.isPropertyAccessExpression(expression)) return staticOwner(expression.expression) && Boolean(resolve(checker.getSymbolAtLocation(expression.name))?.declarations?.some(foreign));
  if (!ts.isIdentifier(expression)) return false;
  const symbol = resolve(checker.getSymbolAtLocation(expression));
  return Boolean(symbol && (isGlobalThis(symbol) || symbol.declarations?.some(foreign)));
}
const isGlobalThis = (symbol) => symbol.getName() === 'globalThis' && !symbol.declarations?.length;

/** The node `this` refers to: the nearest function that is not an arrow, a class member, or the file. */
function thisContainer(node) {
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isFunctionLike(n) && !ts.isArrowFunction(n)) return n;
    if (ts.isPropertyDeclaration(n) || ts.isClassStaticBlockDeclaration(n) || ts.isSourceFile(n)) return n;
  }
  return node.getSourceFile();
}

const lineOf = (node) => node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;
const whereOf = (node, from) => (node.getSourceFile() === from.getSourceFile() ? `line ${lineOf(node)}` : `${relative(root, node.getSourceFile().fileName)} line ${lineOf(node)}`);

// Origins are computed once per node (without bindings); a cycle (a variable
// assigned from itself) counts as the project's while it is being followed.
const cache = new Map();
/** node → the bindings under which it is being followed now. */
const following = new Map();
/** How many calls deep a result is followed with its parameters bound; deeper, every call of the function counts. */
const MAX_DEPTH = 6;

/**
 * Where the value of `expression` comes from. `env` binds a project
 * function's parameters to the arguments of one call of it while its result
 * is followed (Map: parameter → { expression, env }).
 */
function origin(expression, env = null) {
  if (!env && cache.has(expression)) return cache.get(expression);
  const now = following.get(expression) ?? following.set(expression, new Set()).get(expression);
  if (now.has(env)) return OWN;
  now.add(env);
  let result;
  try {
    result = originOf(strip(expression, true), env);
  } finally {
    now.delete(env);
  }
  if (!env) cache.set(expression, result);
  return result;
}

/** `new Proxy(target, handler)`, by the declaration of Proxy in TypeScript's library. */
const isProxy = (node) => (checker.getSymbolAtLocation(strip(node.expression))?.getDeclarations() ?? []).some((d) => inLib(d) && ts.isVariableDeclaration(d) && d.name.getText() === 'Proxy');

function originOf(node, env) {
  // Made right here: literals, functions, classes, `new`, templates, arithmetic.
  if (
    ts.isObjectLiteralExpression(node) ||
    ts.isArrayLiteralExpression(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isClassExpression(node) ||
    (ts.isNewExpression(node) && !isProxy(node)) ||
    ts.isLiteralExpression(node) ||
    ts.isTemplateExpression(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    ts.isPrefixUnaryExpression(node) ||
    ts.isPostfixUnaryExpression(node) ||
    ts.isTypeOfExpression(node) ||
    ts.isVoidExpression(node) ||
    ts.isDeleteExpression(node) ||
    node.kind === ts.SyntaxKind.TrueKeyword ||
    node.kind === ts.SyntaxKind.FalseKeyword ||
    node.kind === ts.SyntaxKind.NullKeyword
  ) {
    return OWN;
  }
  // A proxy passes writes on to its target.
  if (ts.isNewExpression(node)) return node.arguments?.length ? origin(node.arguments[0], env) : OWN;
  if (ts.isConditionalExpression(node)) return combine([origin(node.whenTrue, env), origin(node.whenFalse, env)]);
  if (ts.isBinaryExpression(node)) {
    const operator = node.operatorToken.kind;
    if (operator === ts.SyntaxKind.CommaToken || VALUE_ASSIGNMENTS.has(operator)) return operator === ts.SyntaxKind.EqualsToken || operator === ts.SyntaxKind.CommaToken ? origin(node.right, env) : combine([origin(node.left, env), origin(node.right, env)]);
    if ([ts.SyntaxKind.BarBarToken, ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.QuestionQuestionToken].includes(operator)) return combine([origin(node.left, env), origin(node.right, env)]);
    return OWN;
  }
  if (node.kind === ts.SyntaxKind.ThisKeyword) {
    // `this` in a class's members, or an object literal's methods, is the project's own object.
    const container = thisContainer(node);
    if (ts.isSourceFile(container)) return OWN;
    if (container.parent && (ts.isClassLike(container.parent) || ts.isObjectLiteralExpression(container.parent))) return OWN;
    return typeOriginAt(node);
  }
  if (node.kind === ts.SyntaxKind.SuperKeyword) return OWN;
  if (ts.isIdentifier(node)) return identifierOrigin(node, env);
  if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) return accessOrigin(node, env);
  if (ts.isCallExpression(node)) return callOrigin(node, env);
  return typeOriginAt(node);
}

function identifierOrigin(node, env) {
  if (node.text === 'undefined') return OWN;
  const shorthand = ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node;
  const local = shorthand ? checker.getShorthandAssignmentValueSymbol(node.parent) : checker.getSymbolAtLocation(node);
  return local ? namedOrigin(local, node.text, node, env) : typeOriginAt(node);
}

/** What a name (`local`, as written `text`) refers to: a package's export or a global, else what the project put in it. */
function namedOrigin(local, text, use, env) {
  const symbol = resolve(local);
  if (isGlobalThis(symbol)) return foreignValue('globalThis');
  const declarations = symbol.getDeclarations() ?? [];
  // A package's export or a global (`express`, `mysql`, `Object`, `process`): a module by its name, else as imported.
  if (declarations.some(foreign)) return foreignValue(declarations.some(ts.isSourceFile) || local === symbol ? prettyName(symbol) : text);
  return symbolOrigin(symbol, use, env);
}

/** The origin of what a project's variable, parameter or property holds (read at `use`). */
function symbolOrigin(symbol, use, env) {
  const declaration = symbol.valueDeclaration ?? symbol.getDeclarations()?.[0];
  if (!declaration) return typeOriginAt(use);
  if (ts.isFunctionDeclaration(declaration) || ts.isClassDeclaration(declaration) || ts.isEnumDeclaration(declaration) || ts.isModuleDeclaration(declaration) || ts.isMethodDeclaration(declaration) || ts.isSourceFile(declaration)) {
    return OWN;
  }
  const sources = [];
  if (ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name)) {
    const loop = declaration.parent.parent;
    if (loop && (ts.isForOfStatement(loop) || ts.isForInStatement(loop))) sources.push(readOrigin(loop.expression, use, env));
    else if (declaration.initializer) sources.push(origin(declaration.initializer, env));
  } else if (ts.isBindingElement(declaration)) {
    sources.push(bindingOrigin(declaration, use, env));
    if (declaration.initializer) sources.push(origin(declaration.initializer, env));
  } else if (ts.isParameter(declaration)) {
    // A parameter, or a constructor's parameter property read as `this.x`.
    sources.push(parameterOrigin(declaration, use, env));
  } else if (ts.isPropertyDeclaration(declaration) || ts.isPropertyAssignment(declaration)) {
    if (declaration.initializer) sources.push(origin(declaration.initializer, env));
  } else if (ts.isShorthandPropertyAssignment(declaration)) {
    const value = checker.getShorthandAssignmentValueSymbol(declaration);
    sources.push(value ? namedOrigin(value, declaration.name.text, use, env) : typeOriginAt(use));
  } else if (ts.isGetAccessorDeclaration(declaration)) {
    sources.push(...returned(declaration).map((e) => origin(e, env)));
  }
  // A variable with neither initializer nor assignment (a caught error) is what its type says.
  sources.push(...assignedOrigins(symbol, use));
  return sources.length ? combine(sources) : typeOriginAt(use);
}

/** The origins of what is assigned to a variable or a property after its declaration. */
function assignedOrigins(symbol, use) {
  return (assigned.get(symbol) ?? []).map(({ expression, read }) => (read ? readOrigin(expression, use, null) : origin(expression, null)));
}

/** A part read out of `expression` (destructured, iterated): a package's if `expression` is, else as its type says. */
function readOrigin(expression, use, env) {
  const whole = origin(expression, env);
  if (whole.foreign) return foreignValue(foreignTypeName(checker.getTypeAtLocation(use)) ?? whole.foreign, whole.via);
  return typeOriginAt(use);
}

/** A name bound by destructuring: a part of the variable's or parameter's value, or of what a for-of iterates. */
function bindingOrigin(element, use, env) {
  let root = element.parent;
  while (ts.isObjectBindingPattern(root) || ts.isArrayBindingPattern(root) || ts.isBindingElement(root)) root = root.parent;
  if (ts.isParameter(root)) {
    const whole = parameterOrigin(root, root.name, env);
    return whole.foreign ? foreignValue(foreignTypeName(checker.getTypeAtLocation(use)) ?? whole.foreign, whole.via) : typeOriginAt(use);
  }
  if (ts.isVariableDeclaration(root)) {
    const loop = root.parent.parent;
    if (loop && (ts.isForOfStatement(loop) || ts.isForInStatement(loop))) return readOrigin(loop.expression, use, env);
    if (root.initializer) return readOrigin(root.initializer, use, env);
  }
  return typeOriginAt(use);
}

/** The index of a parameter among a call's arguments (a `this` parameter takes none). */
const argumentIndex = (parameter) => {
  const fn = parameter.parent;
  const shift = fn.parameters[0] && ts.isIdentifier(fn.parameters[0].name) && fn.parameters[0].name.text === 'this' ? 1 : 0;
  return fn.parameters.indexOf(parameter) - shift;
};

/**
 * A parameter holds what its function's calls pass (bound in `env` while one
 * call is followed, else every call the index saw), and, when calls may come
 * from where the checker cannot see (exported functions, methods, callbacks
 * a package calls), whatever its type says.
 */
function parameterOrigin(parameter, use, env) {
  const bound = env?.get(parameter);
  if (bound) return bound.expression ? origin(bound.expression, bound.env) : parameter.initializer ? origin(parameter.initializer, env) : OWN;
  const fn = parameter.parent;
  const sources = [];
  const i = argumentIndex(parameter);
  const calls = callsOf.get(fn) ?? [];
  for (const call of calls) {
    const args = call.arguments ?? [];
    const spread = args.findIndex((a) => ts.isSpreadElement(a));
    if (parameter.dotDotDotToken || (spread !== -1 && spread <= i)) {
      for (const a of args.slice(spread !== -1 ? Math.min(spread, i) : i)) sources.push(origin(ts.isSpreadElement(a) ? a.expression : a));
    } else if (args[i]) sources.push(origin(args[i]));
    else if (parameter.initializer) sources.push(origin(parameter.initializer));
    const found = sources.at(-1);
    if (found?.foreign && !found.via) sources[sources.length - 1] = foreignValue(found.foreign, `passed in at ${whereOf(call, use)}`);
  }
  if (!calls.length || !callsAllSeen(fn)) {
    sources.push(typeOriginAt(use));
    // A callback handed to a function: what the function's declaration says it passes, whatever the callback's own
    // annotation says (`.then((c: Mine) => …)` on a package's promise gets the package's value).
    const passed = ts.isFunctionExpression(fn) || ts.isArrowFunction(fn) ? checker.getContextualType(fn) : undefined;
    const signature = (passed?.isUnion() ? passed.types : passed ? [passed] : []).flatMap((t) => t.getCallSignatures())[0];
    const declared = signature?.getParameters()[i];
    if (declared && !parameter.dotDotDotToken) sources.push(typeOrigin(checker.getTypeOfSymbolAtLocation(declared, fn)));
  }
  if (parameter.initializer) sources.push(origin(parameter.initializer));
  return combine(sources);
}

/** The expressions a project function returns (an arrow's body, its `return`s, not those of functions inside it). */
function returned(fn) {
  if (!fn.body) return [];
  if (!ts.isBlock(fn.body)) return [fn.body];
  const out = [];
  const walk = (node) => {
    if (ts.isReturnStatement(node)) {
      if (node.expression) out.push(node.expression);
    } else if (!ts.isFunctionLike(node) && !ts.isClassLike(node)) ts.forEachChild(node, walk);
  };
  walk(fn.body);
  return out;
}

/** Binds a project function's parameters to one call's arguments. */
function bind(fn, call, env) {
  if ((env?.depth ?? 0) >= MAX_DEPTH) return null;
  const bound = new Map();
  bound.depth = (env?.depth ?? 0) + 1;
  const args = call.arguments ?? [];
  for (const parameter of fn.parameters) {
    const i = argumentIndex(parameter);
    if (i < 0 || parameter.dotDotDotToken || args.slice(0, i + 1).some((a) => ts.isSpreadElement(a))) continue;
    bound.set(parameter, { expression: args[i], env });
  }
  return bound;
}

/** The object literal `expression` is, through constants that are never assigned again (`const deps = { … }`), or null. */
function literalOf(expression, depth = 0) {
  expression = strip(expression, true);
  if (ts.isObjectLiteralExpression(expression)) return expression;
  if (!ts.isIdentifier(expression) || depth > 8) return null;
  const symbol = checker.getSymbolAtLocation(expression);
  const declaration = symbol?.valueDeclaration;
  if (!declaration || !ts.isVariableDeclaration(declaration) || !declaration.initializer || assigned.has(symbol)) return null;
  if (!(declaration.parent.flags & ts.NodeFlags.Const)) return null;
  return literalOf(declaration.initializer, depth + 1);
}

/** A value read from an object: `o.x`, `o[k]`. */
function accessOrigin(node, env) {
  const whole = origin(node.expression, env);
  const symbol = propertySymbol(node);
  const declarations = symbol?.getDeclarations() ?? [];
  const project = declarations.length > 0 && !declarations.some(foreign);
  if (project && !whole.foreign) {
    // A property of an object literal the checker can see: what that literal put there.
    const literal = literalOf(node.expression);
    const own = literal && !literal.properties.some(ts.isSpreadAssignment) ? literal.properties.find((p) => p.name && !ts.isComputedPropertyName(p.name) && p.name.text === symbol.getName()) : undefined;
    if (own) {
      // What the literal put there (a method or an accessor is its own), and whatever is assigned to the property later.
      const put = ts.isPropertyAssignment(own) ? origin(own.initializer, env) : ts.isShorthandPropertyAssignment(own) ? origin(own.name, env) : OWN;
      return combine([put, ...assignedOrigins(symbol, node)]);
    }
  }
  // What the project stores in a property of its own (or declares on Express's request), wherever it does: follow it.
  if (project && (!whole.foreign || augmentsPerRequest(declarations))) return symbolOrigin(symbol, node, env);
  if (whole.foreign) {
    const part = ts.isPropertyAccessExpression(node) ? `${whole.foreign}.${node.name.text}` : `an element of ${whole.foreign}`;
    return foreignValue(foreignTypeName(checker.getTypeAtLocation(node)) ?? part, whole.via);
  }
  if (whole.opaque && !declarations.length) return OPAQUE;
  return typeOriginAt(node);
}

function callOrigin(call, env) {
  const member = libFunction(call.expression);
  if (isIn(PROTOTYPE_READERS, member) && call.arguments.length) {
    // A prototype is its class's: the project's only for an instance of a project class.
    const of = call.arguments[0];
    const whole = origin(of, env);
    if (whole.foreign) return foreignValue(`the prototype of ${whole.foreign}`, whole.via);
    const declarations = checker.getTypeAtLocation(of).getSymbol()?.getDeclarations() ?? [];
    if (declarations.length && declarations.every((d) => !foreign(d) && ts.isClassLike(d))) return OWN;
    return foreignValue(`the prototype of ${checker.typeToString(checker.getTypeAtLocation(of))}`);
  }
  const declaration = checker.getResolvedSignature(call)?.declaration;
  if (declaration && !ts.isJSDocSignature(declaration) && !foreign(declaration) && declaration.body) {
    // A project function's result: what it returns, its parameters bound to this call's arguments.
    return combine(returned(declaration).map((e) => origin(e, bind(declaration, call, env))));
  }
  const type = checker.getTypeAtLocation(call);
  const callee = strip(call.expression);
  const method = ts.isPropertyAccessExpression(callee) || ts.isElementAccessExpression(callee);
  if (member && (!method || staticOwner(callee.expression))) {
    // The language's own functions (Object.create, JSON.parse, Array.from) make new values, but those that read their argument.
    if (isIn(ARGUMENT_READERS, member)) return call.arguments.length ? readOrigin(call.arguments[0], call, env) : OWN;
    // Object.assign, defineProperty, freeze, … give back the object they were given.
    if (member.owner === 'ObjectConstructor' && isIn(OBJECT_WRITERS, member)) return call.arguments.length ? origin(call.arguments[0], env) : OWN;
    return type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) ? OWN : typeOrigin(type);
  }
  if (method && !staticOwner(callee.expression)) {
    // A method of a package's object gives that package's objects, unless it is the project's data.
    const receiver = origin(callee.expression, env);
    if (receiver.foreign && !projectData(checker.getAwaitedType(type) ?? type)) {
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : 'a method';
      return foreignValue(foreignTypeName(checker.getAwaitedType(type) ?? type) ?? `what ${receiver.foreign}.${name}() gives`, receiver.via);
    }
  }
  return typeOrigin(type);
}

/** Whether property declarations are all the project's fields on Express's request (augmentations of a package's interface). */
function augmentsPerRequest(declarations) {
  return declarations.every((d) => {
    const owner = d.parent;
    if (!ts.isInterfaceDeclaration(owner) || !PER_REQUEST.has(owner.name.text) || foreign(d)) return false;
    return Boolean(checker.getSymbolAtLocation(owner.name)?.getDeclarations()?.some(foreign));
  });
}

// ---------------------------------------------------------------------------
// The checks.

const findings = [];
const report = (node, what) => {
  const file = node.getSourceFile();
  findings.push(`${relative(root, file.fileName)}:${lineOf(node)}: ${what}: ${node.getText().split('\n')[0].slice(0, 120)}`);
};
const suffix = (o) => (o.via ? ` (${o.via})` : '');

/** Why writing into `object` is refused, or null: it is a package's, or typed any/unknown with no origin in the project. */
function refusal(object) {
  const o = origin(object);
  if (o.foreign) return `${o.foreign}, an object another package owns${suffix(o)}`;
  if (o.opaque) return `a value typed any or unknown that the project is not seen to make`;
  return null;
}

/** A write to `target` (an assignment's left side, a destructuring target, the operand of delete/++/--). */
function checkTarget(target, node, verb = 'writes') {
  target = strip(target);
  if (ts.isObjectLiteralExpression(target) || ts.isArrayLiteralExpression(target)) {
    for (const t of destructuredTargets(target)) checkTarget(t, node, verb);
    return;
  }
  if (!ts.isPropertyAccessExpression(target) && !ts.isElementAccessExpression(target)) return; // a variable
  const symbol = propertySymbol(target);
  const declarations = symbol?.getDeclarations() ?? [];
  if (declarations.length && declarations.every(foreign)) {
    // A property a package declares: refused on any object, but for documented settings.
    let owner = ownerOf(declarations[0]);
    if (owner === '?') owner = origin(target.expression).foreign ?? foreignTypeName(checker.getTypeAtLocation(target.expression)) ?? owner;
    const key = `${owner}.${symbol.getName()}`;
    if (!ALLOWED.has(key) && !declarations.every(dataShape)) report(node, `${verb} ${key}, a property another package declares`);
    return;
  }
  // The project's fields on Express's request.
  if (declarations.length && augmentsPerRequest(declarations)) return;
  const why = refusal(target.expression);
  if (!why) return;
  let what;
  if (symbol) what = `${symbol.getName()} of`;
  else if (ts.isPropertyAccessExpression(target)) what = `${target.name.text} of`;
  else if (ts.isStringLiteralLike(target.argumentExpression)) what = `${target.argumentExpression.text} of`;
  else what = checker.getTypeAtLocation(target.argumentExpression).flags & ts.TypeFlags.NumberLike ? 'an element of' : 'a computed property of';
  report(node, `${verb} ${what} ${why}`);
}

/** Unwraps parentheses and casts around `node`, upwards: the expression its context sees. */
function outermost(node) {
  while (node.parent && (ts.isParenthesizedExpression(node.parent) || ts.isAsExpression(node.parent) || ts.isNonNullExpression(node.parent) || ts.isSatisfiesExpression(node.parent) || ts.isTypeAssertionExpression(node.parent))) node = node.parent;
  return node;
}

/** The arguments an `apply`-style array gives, when written out (`[runner, {…}]`), else null. */
const spelledOut = (array) => (array && ts.isArrayLiteralExpression(strip(array)) ? strip(array).elements : null);

/**
 * A reference to a library function that writes (Object.assign & co., a
 * collection's push & co.): what does it write to? Called directly, through
 * `.call`/`.apply`/`.bind` or `Reflect.apply`, the target is checked like any
 * written object; kept in a variable, it is checked where that variable is
 * called; passed anywhere else, the checker cannot see its target and says so.
 */
function checkWriterReference(node, member) {
  const objectWriter = isIn(OBJECT_WRITERS, member);
  const up = outermost(node);
  const parent = up.parent;
  let target;
  let how = displayName(member);
  if (ts.isCallExpression(parent) && parent.expression === up) {
    if (objectWriter) target = parent.arguments[0];
    else if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) target = node.expression;
    else return; // an alias called without a receiver: it has nothing to change
  } else if (ts.isPropertyAccessExpression(parent) && parent.expression === up && ['call', 'apply', 'bind'].includes(parent.name.text) && ts.isCallExpression(parent.parent) && parent.parent.expression === parent) {
    const [thisArg, ...rest] = parent.parent.arguments;
    const args = parent.name.text === 'apply' ? spelledOut(rest[0]) : rest;
    target = objectWriter ? args?.[0] : thisArg;
    how = `${how}.${parent.name.text}`;
  } else if (ts.isCallExpression(parent) && parent.arguments[0] === up && libFunction(parent.expression)?.owner === 'Reflect' && libFunction(parent.expression).name === 'apply') {
    const [, thisArg, array] = parent.arguments;
    target = objectWriter ? spelledOut(array)?.[0] : thisArg;
    how = `Reflect.apply(${how})`;
  } else if ((ts.isVariableDeclaration(parent) && parent.initializer === up) || (ts.isPropertyAccessExpression(parent) && parent.expression === up)) {
    return; // kept under another name (checked where it is called), or its own properties read (`.name`)
  } else {
    // Passed as a value: a collection's method of the project's own collection changes only what it is called on.
    if (!objectWriter && (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) && !refusal(node.expression)) return;
    report(parent, `passes ${how} as a value, so what it writes to cannot be checked`);
    return;
  }
  if (!target) {
    report(parent, `${how} with a target the checker cannot see`);
    return;
  }
  if (objectWriter && member.name === 'assign' && ts.isObjectLiteralExpression(strip(target))) return;
  const why = refusal(target);
  if (why) report(ts.isCallExpression(parent) ? parent : parent.parent, `${how} on ${why}`);
}

/** Whether `node` refers to a value (not a declaration's name, not the name in `o.name`, which is checked as the whole access). */
function isReference(node) {
  if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) return true;
  if (!ts.isIdentifier(node)) return false;
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isDeclaration(parent) && parent.name === node) return false;
  if (ts.isBindingElement(parent) && parent.propertyName === node) return false;
  if (ts.isPropertyAssignment(parent) && parent.name === node) return false;
  if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent)) return false;
  if (ts.isTypeReferenceNode(parent) || ts.isQualifiedName(parent) || ts.isTypeQueryNode(parent)) return false;
  return true;
}

function visit(node) {
  if (ts.isBinaryExpression(node) && ASSIGNMENTS.has(node.operatorToken.kind)) checkTarget(node.left, node);
  else if (ts.isDeleteExpression(node)) checkTarget(node.expression, node, 'deletes');
  else if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(node.operator)) {
    checkTarget(node.operand, node);
  } else if ((ts.isForOfStatement(node) || ts.isForInStatement(node)) && !ts.isVariableDeclarationList(node.initializer)) {
    checkTarget(node.initializer, node);
  }
  if (isReference(node)) {
    const member = libFunction(node);
    if (isIn(OBJECT_WRITERS, member) || isIn(COLLECTION_WRITERS, member)) checkWriterReference(node, member);
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
