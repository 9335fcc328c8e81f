// `npm run check:imports` (run by .ci/run): the imports of src/ run one way.
//
// LAYERS below is the one statement of the layers, top to bottom: the rules
// are made from it, and docs/architecture.md describes it. A file belongs to
// the first layer, top to bottom, one of whose patterns matches its path. It
// imports files of its own layer and of the layers below, never of a layer
// above; a lower layer that needs something from above owns an interface for
// it, which the layer above implements and provides. Type-only imports count:
// a type from above is a dependency on it all the same. No file is part of a
// cycle of imports. Unit specs (*.spec.ts) are tests, not layers: only the
// cycle rule sees them.

/**
 * The features, each with the features it may import; the others stay apart.
 * Catalog and inventory publish events through the events contract (kernel),
 * and the events feature knows neither: the edge wires them together.
 */
const FEATURES = {
  auth: [],
  catalog: ['auth'], // the caller
  inventory: ['auth', 'catalog'], // the caller, warehouses; it reads and locks items
  events: ['auth'], // the caller; the relay looks up a subscription's client
  idempotency: [],
  health: [],
};

/** Top to bottom. */
const LAYERS = [
  {
    name: 'edge',
    paths: [
      // The process entries, the OpenAPI document, every entity for the TypeORM CLI.
      '^src/(main|serve|compile-cache|bootstrap|cli|openapi|entities)[.]ts$',
      // The Nest modules, in whatever folder: they wire the rest. (A controller is its feature's.)
      '^src/.+[.]module[.]ts$',
      // How a request comes in and its answer or failure goes out.
      '^src/http/(front|request-context|express-adapter|client-errors|exception[.]filter)[.]ts$',
    ],
  },
  {
    name: 'features',
    paths: [
      // What the service does, a folder each: controllers, services, repositories, DTOs, answers, entities.
      `^src/(${Object.keys(FEATURES).join('|')})/`,
    ],
  },
  {
    name: 'kernel',
    paths: [
      // What features share and publish, knowing no feature: pagination, the metrics and its route, the
      // Redis link, and the rest of http/: the logger, field validators and the validation pipe, OpenAPI
      // decorators, error bodies, datetimes, streamed JSON, a write request's unit of work, the route list,
      // the routes' marks (public, unmetered, Idempotency-Key, the Consistency header).
      '^src/(pagination|metrics|redis|http)/',
      // Exact quantities; the events contract (event types, a change's event, the recorder).
      '^src/(quantity|event-contract)[.]ts$',
    ],
  },
  {
    name: 'database',
    paths: [
      // Data source, migrations, transactions, statements, counters, where lists read; the
      // interfaces through which it reports (reporting.ts) and a list's total statement.
      '^src/database/',
    ],
  },
  {
    name: 'base',
    paths: [
      // Error codes and DomainError, and the configuration: every layer, database included,
      // imports them; they import nothing of the service.
      '^src/errors[.]ts$',
      '^src/config/',
    ],
  },
];

/**
 * Imports from a lower layer up allowed for the time being, each
 * `{ file, imports, comment }` with the reason and when it goes: none now.
 */
const KNOWN_EXCEPTIONS = [];

const SPECS = '[.]spec[.]ts$';

/** The layer of a file of src/ (its name), or undefined. */
function layerOf(file) {
  return LAYERS.find((l) => l.paths.some((p) => new RegExp(p).test(file)))?.name;
}

/** A path as a pattern that matches it alone. */
const exactly = (file) => `^${file.replace(/[.]/g, '[.]')}$`;

/** A layer's own files: its patterns, less what a layer above claims first. */
function members(index) {
  return { path: LAYERS[index].paths, pathNot: LAYERS.slice(0, index).flatMap((l) => l.paths) };
}

/** A feature imports no other feature but those FEATURES lists for it. */
function featureRules() {
  const edge = LAYERS[0].paths;
  return Object.entries(FEATURES).map(([feature, uses]) => {
    const others = Object.keys(FEATURES).filter((f) => f !== feature && !uses.includes(f));
    return {
      name: 'features-apart',
      comment: `${feature} imports ${uses.length ? `no feature but ${uses.join(', ')}` : 'no other feature'} (FEATURES)`,
      severity: 'error',
      from: { path: `^src/${feature}/`, pathNot: [...edge, SPECS] },
      to: { path: `^src/(${others.join('|')})/`, pathNot: edge },
    };
  });
}

function layerRules() {
  const rules = [];
  LAYERS.forEach((layer, index) => {
    if (index === 0) return;
    const above = LAYERS.slice(0, index);
    const own = members(index);
    const exceptions = KNOWN_EXCEPTIONS.filter((e) => layerOf(e.file) === layer.name);
    rules.push({
      name: `${layer.name}-imports-up`,
      comment: `${layer.name} imports nothing of ${above.map((l) => l.name).join(', ')}`,
      severity: 'error',
      from: { path: own.path, pathNot: [...own.pathNot, SPECS, ...exceptions.map((e) => exactly(e.file))] },
      to: { path: above.flatMap((l) => l.paths) },
    });
    for (const e of exceptions) {
      rules.push({
        name: `${layer.name}-imports-up`,
        comment: `${layer.name} imports nothing of ${above.map((l) => l.name).join(', ')}; known exception: ${e.comment}`,
        severity: 'error',
        from: { path: exactly(e.file) },
        to: { path: above.flatMap((l) => l.paths), pathNot: exactly(e.imports) },
      });
    }
  });
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No file of src/ imports, through any chain of imports, itself',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'in-a-layer',
      comment: 'Every file of src/ belongs to a layer (LAYERS in .dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: '^src/', pathNot: [...LAYERS.flatMap((l) => l.paths), SPECS] },
      to: {},
    },
    {
      // A file in no layer that imports nothing of src/ escapes the rule above: its importers are named here.
      name: 'into-no-layer',
      comment: 'No file of src/ imports a file in no layer (LAYERS in .dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: [...LAYERS.flatMap((l) => l.paths), SPECS] },
    },
    {
      // And one that neither imports nor is imported.
      name: 'alone-in-no-layer',
      comment: 'Every file of src/ belongs to a layer, even one nothing imports (LAYERS in .dependency-cruiser.cjs)',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: [...LAYERS.flatMap((l) => l.paths), SPECS, '[.]d[.]ts$'] },
      to: {},
    },
    ...layerRules(),
    ...featureRules(),
  ],
  options: {
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The reporters' file names are the paths above, relative to the repository.
    baseDir: __dirname,
  },
};
