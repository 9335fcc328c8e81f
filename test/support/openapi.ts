/** Checks a JSON value against a schema of the served OpenAPI document (`test/openapi.e2e-spec.ts`). */
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
export type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>; components: { schemas: Record<string, Schema> } };

/** Where `value` departs from `schema` (empty: it conforms). Supports what the document uses. */
export function departures(value: unknown, schema: Schema, doc: Doc, at = '$'): string[] {
  if (schema.$ref) return departures(value, doc.components.schemas[schema.$ref.split('/').pop()!], doc, at);
  if (schema.allOf) return schema.allOf.flatMap((s) => departures(value, s, doc, at));
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((s) => departures(value, s, doc, at).length === 0).length;
    return matching === 1 ? [] : [`${at}: matches ${matching} of the oneOf schemas`];
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
      return Array.isArray(value) ? value.flatMap((v, i) => departures(v, schema.items!, doc, `${at}[${i}]`)) : [`${at}: not an array`];
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object`];
      const keys = Object.keys(value as object);
      if (schema.properties) {
        const expected = Object.keys(schema.properties);
        if (schema.additionalProperties === false && keys.join() !== expected.join()) return [`${at}: fields ${keys.join(',')}, documented ${expected.join(',')}`];
        return expected.flatMap((k) => (k in (value as object) ? departures((value as Record<string, unknown>)[k], schema.properties![k], doc, `${at}.${k}`) : [`${at}.${k}: missing`]));
      }
      const each = schema.additionalProperties;
      return typeof each === 'object' ? keys.flatMap((k) => departures((value as Record<string, unknown>)[k], each, doc, `${at}.${k}`)) : [];
    }
    default:
      return [`${at}: schema without a type`];
  }
}
