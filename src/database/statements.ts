import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';

/**
 * Hand-written, parameterised statements for the hot paths (a point read, a
 * Receive), through the same TypeORM connection and transaction as
 * everything else, without the query builder's work per request (SQL built
 * from metadata, aliases, the result transformer). `?` placeholders serve
 * both drivers. Rows come back as the entity's values exactly as the query
 * builder would give them: the driver reads each column (DATETIME as a UTC
 * `Date`, booleans, DECIMAL) and applies the column's transformer.
 */

interface Shape {
  columns: ColumnMetadata[];
  /** The select list by alias ('' for none), each column quoted for the dialect. */
  lists: Map<string, string>;
}

const shapes = new WeakMap<object, Shape>();

function shapeOf(m: EntityManager, entity: EntityTarget<ObjectLiteral>): Shape {
  const metadata = m.connection.getMetadata(entity);
  let shape = shapes.get(metadata);
  if (!shape) shapes.set(metadata, (shape = { columns: metadata.columns, lists: new Map() }));
  return shape;
}

/** Every column of the entity as a select list, `alias.` before each when given (`i.partNo, i.shortID, …`). */
export function columnList(m: EntityManager, entity: EntityTarget<ObjectLiteral>, alias = ''): string {
  const shape = shapeOf(m, entity);
  let list = shape.lists.get(alias);
  if (list === undefined) {
    const prefix = alias ? `${alias}.` : '';
    list = shape.columns.map((c) => `${prefix}${m.connection.driver.escape(c.databaseName)}`).join(', ');
    shape.lists.set(alias, list);
  }
  return list;
}

/** A row read by a statement that selected `columnList(m, entity)`: the entity's values, typed as the query builder would type them. */
export function toEntity<T extends ObjectLiteral>(m: EntityManager, entity: EntityTarget<T>, row: Record<string, unknown>): T {
  const driver = m.connection.driver;
  const out: Record<string, unknown> = {};
  for (const column of shapeOf(m, entity).columns) out[column.propertyName] = driver.prepareHydratedValue(row[column.databaseName], column);
  return out as T;
}

/** The rows of a statement. */
export function rows(m: EntityManager, sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  return m.query(sql, params);
}
