/**
 * Checks of the served OpenAPI document (`test/openapi.e2e-spec.ts`): a JSON
 * value against one of its schemas (`departures`), and the document's answers
 * as a whole (`closedAnswers`).
 */
export type Schema = {
  $ref?: string;
  oneOf?: Schema[];
  allOf?: Schema[];
  type?: string;
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
};

const componentName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

export type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>; components: { schemas: Record<string, Schema> } };

/**
 * Where `value` departs from `schema` (empty: it conforms). Supports what the
 * document uses. `seen` collects the components the value was checked
 * against (of a oneOf, those of the branch it matches).
 */
export function departures(value: unknown, schema: Schema, doc: Doc, at = '$', seen = new Set<string>()): string[] {
  if (schema.$ref) {
    const name = componentName(schema.$ref);
    seen.add(name);
    return departures(value, doc.components.schemas[name], doc, at, seen);
  }
  if (schema.allOf) return schema.allOf.flatMap((s) => departures(value, s, doc, at, seen));
  if (schema.oneOf) {
    const branches = schema.oneOf.map((s) => {
      const branchSeen = new Set<string>();
      return { fits: departures(value, s, doc, at, branchSeen).length === 0, branchSeen };
    });
    const matching = branches.filter((b) => b.fits);
    if (matching.length === 1) matching[0].branchSeen.forEach((name) => seen.add(name));
    return matching.length === 1 ? [] : [`${at}: matches ${matching.length} of the oneOf schemas`];
  }
  if (value === null) return schema.nullable ? [] : [`${at}: null`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`];
  switch (schema.type) {
    case 'integer':
      return Number.isInteger(value) ? [] : [`${at}: ${JSON.stringify(value)} is not an integer`];
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : [`${at}: ${JSON.stringify(value)} is not a number`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at}: ${JSON.stringify(value)} is not a boolean`];
    case 'string':
      if (typeof value !== 'string') return [`${at}: ${JSON.stringify(value)} is not a string`];
      return schema.format === 'date-time' && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value) ? [`${at}: ${value} is not an ISO UTC datetime`] : [];
    case 'array':
      return Array.isArray(value) ? value.flatMap((v, i) => departures(v, schema.items!, doc, `${at}[${i}]`, seen)) : [`${at}: not an array`];
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object`];
      const keys = Object.keys(value as object);
      if (schema.properties) {
        const expected = Object.keys(schema.properties);
        // A property outside `required` may be absent (ConflictDetails' figures); those sent keep the documented order.
        const mandatory = (k: string) => !schema.required || schema.required.includes(k);
        const sendable = expected.filter((k) => keys.includes(k) || mandatory(k));
        if (schema.additionalProperties === false && keys.join() !== sendable.join()) return [`${at}: fields ${keys.join(',')}, documented ${expected.join(',')}`];
        return expected.flatMap((k) =>
          k in (value as object) ? departures((value as Record<string, unknown>)[k], schema.properties![k], doc, `${at}.${k}`, seen) : mandatory(k) ? [`${at}.${k}: missing`] : [],
        );
      }
      const each = schema.additionalProperties;
      return typeof each === 'object' ? keys.flatMap((k) => departures((value as Record<string, unknown>)[k], each, doc, `${at}.${k}`, seen)) : [];
    }
    default:
      return [`${at}: schema without a type`];
  }
}

type Operation = { responses: Record<string, { content?: Record<string, { schema: Schema }> }>; requestBody?: { content?: Record<string, { schema: Schema }> } };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The components `schema` refers to, directly or through other components. */
function referenced(schema: unknown, doc: Doc, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => referenced(s, doc, into));
  else if (schema && typeof schema === 'object') {
    const ref = (schema as Schema).$ref;
    if (ref === undefined) Object.values(schema).forEach((s) => referenced(s, doc, into));
    else if (!into.has(componentName(ref))) referenced(doc.components.schemas[componentName(ref)], doc, into.add(componentName(ref)));
  }
  return into;
}

/** The components the responses of the document refer to, directly or through other components. */
export function answerComponents(doc: Doc): string[] {
  const answers = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const [method, op] of Object.entries(item as Record<string, Operation>)) if (METHODS.includes(method)) referenced(op.responses, doc, answers);
  }
  return [...answers];
}

/**
 * The one component whose fields may be absent, each named here: a 409's
 * `details` carries `reason` always and only the figures its reason names
 * (DECISIONS "Conflicts"); `operation` only in a Batch.
 */
const OPTIONAL_FIELDS: Record<string, string[]> = {
  '#/components/schemas/ConflictDetails': ['itemID', 'wid', 'requested', 'available', 'shortID', 'bound', 'expected', 'onHand', 'limit', 'allocationId', 'expectationId', 'state', 'operation'],
};

/**
 * Where a response schema would let an answer differ from what it documents:
 * an object whose `required` does not list every property, in order (a field
 * that may be missing), or without `additionalProperties: false` (a field
 * that may be extra), or a schema with no type. Components are checked where
 * they are defined (`closedAnswers`), not at each reference; the inline half
 * of an `allOf` may only narrow properties of the components beside it.
 */
function openings(schema: Schema, doc: Doc, at: string): string[] {
  if (schema.$ref) return [];
  if (schema.oneOf) return schema.oneOf.flatMap((s, i) => openings(s, doc, `${at}.oneOf[${i}]`));
  if (schema.allOf) {
    const refs = schema.allOf.filter((s) => s.$ref);
    const known = new Set(refs.flatMap((s) => Object.keys(doc.components.schemas[componentName(s.$ref!)]?.properties ?? {})));
    return schema.allOf.flatMap((s, i) => {
      if (s.$ref) return doc.components.schemas[componentName(s.$ref)] ? [] : [`${at}: ${s.$ref} is not a component`];
      const names = new Set([...Object.keys(s.properties ?? {}), ...(s.required ?? [])]);
      return [...names].filter((k) => !known.has(k)).map((k) => `${at}.allOf[${i}]: ${k} narrows no property of ${refs.map((r) => r.$ref).join(', ')}`);
    });
  }
  switch (schema.type) {
    case 'object': {
      if (!schema.properties) {
        // A map (Error.details): what it holds is typed, whatever its keys.
        return typeof schema.additionalProperties === 'object' ? openings(schema.additionalProperties, doc, `${at}.*`) : [`${at}: an object with neither properties nor typed additionalProperties`];
      }
      const keys = Object.keys(schema.properties);
      const required = OPTIONAL_FIELDS[at] ? keys.filter((k) => !OPTIONAL_FIELDS[at].includes(k)) : keys;
      return [
        ...(JSON.stringify(schema.required ?? []) === JSON.stringify(required) ? [] : [`${at}: required ${JSON.stringify(schema.required ?? [])}, properties ${JSON.stringify(keys)}`]),
        ...(schema.additionalProperties === false ? [] : [`${at}: additionalProperties is not false`]),
        ...keys.flatMap((k) => openings(schema.properties![k], doc, `${at}.${k}`)),
      ];
    }
    case 'array':
      return schema.items ? openings(schema.items, doc, `${at}[]`) : [`${at}: an array without items`];
    case 'integer':
    case 'number':
    case 'string':
    case 'boolean':
      return [];
    default:
      return [`${at}: schema without a type`];
  }
}

/**
 * Where the document fails to pin an answer down (empty: it does not): every
 * operation has a success response with a JSON schema; every response of
 * every status has a JSON schema that is closed (see `openings`); every
 * component a response refers to is closed; every other component is a
 * request body. Together with `departures` on real answers, a field added to
 * a response mapper but not to its class, or declared on the class without a
 * decorator, or documented but not sent, fails.
 */
export function closedAnswers(doc: Doc): string[] {
  const problems: string[] = [];
  const answers = new Set(answerComponents(doc));
  const requests = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item as Record<string, Operation>).filter(([m]) => METHODS.includes(m))) {
      const name = `${method.toUpperCase()} ${path}`;
      const success = Object.keys(op.responses).filter((status) => /^2\d\d$/.test(status));
      if (!success.length) problems.push(`${name}: no success response`);
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = response.content?.['application/json']?.schema;
        // GET /metrics: Prometheus text, a string by definition.
        if (!schema && response.content?.['text/plain']?.schema?.type === 'string' && Object.keys(response.content).length === 1) continue;
        if (!schema) problems.push(`${name} ${status}: no JSON schema`);
        else problems.push(...openings(schema, doc, `${name} ${status}`));
      }
      referenced(op.requestBody, doc, requests);
    }
  }
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    if (answers.has(name)) problems.push(...openings(schema, doc, `#/components/schemas/${name}`));
    else if (!requests.has(name)) problems.push(`#/components/schemas/${name}: neither an answer nor a request body`);
  }
  return problems;
}
