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
  /** A row to the entity's values (`toEntity`), made once per entity and driver. */
  hydrate?: (row: Record<string, unknown>) => ObjectLiteral;
  /** Each column's reader (`columnReaders`), made once per entity, projection and driver. */
  readers?: Record<string, (value: unknown) => unknown>;
}

/**
 * Shapes by DataSource, then entity, then projection (the properties array
 * itself, a constant of its caller): found per row without building a key.
 */
const shapes = new WeakMap<object, Map<unknown, { all?: Shape; projections: WeakMap<readonly string[], Shape> }>>();

/** The entity's columns, or only those of the given properties (a projection), with what is made once for them. */
function shapeOf(m: EntityManager, entity: EntityTarget<ObjectLiteral>, properties?: readonly string[]): Shape {
  let byEntity = shapes.get(m.connection);
  if (!byEntity) shapes.set(m.connection, (byEntity = new Map()));
  let entry = byEntity.get(entity);
  if (!entry) byEntity.set(entity, (entry = { projections: new WeakMap() }));
  if (!properties) return (entry.all ??= { columns: m.connection.getMetadata(entity).columns, lists: new Map() });
  let shape = entry.projections.get(properties);
  if (!shape) {
    const metadata = m.connection.getMetadata(entity);
    const columns = properties.map((p) => {
      const column = metadata.findColumnWithPropertyName(p);
      if (!column) throw new Error(`${metadata.name} has no column ${p}`);
      return column;
    });
    entry.projections.set(properties, (shape = { columns, lists: new Map() }));
  }
  return shape;
}

/**
 * Every column of the entity as a select list, `alias.` before each when given
 * (`i.partNo, i.shortID, …`); only the columns of `properties` when given (a
 * page that sends a few of a wide row's columns reads and converts only those).
 */
export function columnList(m: EntityManager, entity: EntityTarget<ObjectLiteral>, alias = '', properties?: readonly string[]): string {
  const shape = shapeOf(m, entity, properties);
  let list = shape.lists.get(alias);
  if (list === undefined) {
    const prefix = alias ? `${alias}.` : '';
    list = shape.columns.map((c) => `${prefix}${m.connection.driver.escape(c.databaseName)}`).join(', ');
    shape.lists.set(alias, list);
  }
  return list;
}

/**
 * A row read by a statement that selected `columnList(m, entity)` (with the
 * same `properties`, if any): the entity's values, typed as the query builder
 * would type them; with `properties`, only those.
 */
export function toEntity<T extends ObjectLiteral>(m: EntityManager, entity: EntityTarget<T>, row: Record<string, unknown>): T;
export function toEntity<T extends ObjectLiteral, K extends keyof T & string>(
  m: EntityManager,
  entity: EntityTarget<T>,
  row: Record<string, unknown>,
  properties: readonly K[],
): Pick<T, K>;
export function toEntity<T extends ObjectLiteral>(m: EntityManager, entity: EntityTarget<T>, row: Record<string, unknown>, properties?: readonly string[]): T {
  const shape = shapeOf(m, entity, properties);
  shape.hydrate ??= hydrator(m, shape.columns);
  return shape.hydrate(row) as T;
}

/** A value the driver hands over as the entity holds it (hydratesAsRead). */
const asRead = <V>(value: V): V => value;

/**
 * For each of the entity's `properties`, the function that turns the value a
 * statement read for it into the entity's value, as `toEntity` does (the
 * driver's `prepareHydratedValue`, or the value itself where the driver
 * would return it unchanged: hydratesAsRead). Each property's column must be
 * named as the property (the row is then read property by property).
 *
 * For a hot path that reads each row into an object literal of one fixed
 * shape, property by property: V8 then reads and writes them through
 * monomorphic caches, where toEntity's loop reads and writes by computed keys
 * through megamorphic ones. A page of 250 lots spent about 12,000
 * instructions a row in toEntity (bench:instructions, `lots`: 14.5 M a page
 * against 11.5 M without it).
 */
export function columnReaders<T extends ObjectLiteral, K extends keyof T & string>(m: EntityManager, entity: EntityTarget<T>, properties: readonly K[]): { [P in K]: (value: unknown) => T[P] } {
  const shape = shapeOf(m, entity, properties);
  if (!shape.readers) {
    const driver = m.connection.driver;
    const readers: Record<string, (value: unknown) => unknown> = {};
    for (const column of shape.columns) {
      if (column.databaseName !== column.propertyName) throw new Error(`${column.entityMetadata.name}.${column.propertyName} is stored as ${column.databaseName}: read it with toEntity`);
      readers[column.propertyName] = hydratesAsRead(column) ? asRead : (value: unknown) => driver.prepareHydratedValue(value, column);
    }
    shape.readers = readers;
  }
  return shape.readers as { [P in K]: (value: unknown) => T[P] };
}

/** Column types whose value both drivers hand over unchanged when no transformer is set (prepareHydratedValue has no case for them). */
const AS_READ = new Set<unknown>(['int', 'integer', 'smallint', 'bigint', 'varchar', 'char', 'text']);

/** Whether the driver's prepareHydratedValue returns this column's values as read: then the hydrator copies them. */
export function hydratesAsRead(column: ColumnMetadata): boolean {
  return !column.transformer && AS_READ.has(column.type);
}

/**
 * A row to the entity's values: each value from the driver's
 * `prepareHydratedValue` as the query builder would, except the columns it
 * would return unchanged (`hydratesAsRead`), which are copied. The columns
 * and their conversions are found once per entity and projection; a row is
 * then one pass over them.
 */
function hydrator(m: EntityManager, columns: ColumnMetadata[]): (row: Record<string, unknown>) => ObjectLiteral {
  const driver = m.connection.driver;
  const plan = columns.map((column) => ({ from: column.databaseName, to: column.propertyName, column, asRead: hydratesAsRead(column) }));
  return (row) => {
    const values: ObjectLiteral = {};
    for (const { from, to, column, asRead } of plan) values[to] = asRead ? row[from] : driver.prepareHydratedValue(row[from], column);
    return values;
  };
}

/** The rows of a statement. */
export function rows(m: EntityManager, sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  return m.query(sql, params);
}

/** A write in the transaction of `m`: the number of rows it changed (matched, for an UPDATE). */
export async function execute(m: EntityManager, sql: string, params: unknown[]): Promise<number> {
  if (!m.queryRunner) throw new Error('execute() writes in a transaction: pass its manager');
  const result = await m.queryRunner.query(sql, params, true);
  return result.affected ?? 0;
}

/** A value as the driver stores it in the entity's column (a `Date` as SQLite's UTC text, say), for a statement's parameter. */
export function columnValue(m: EntityManager, entity: EntityTarget<ObjectLiteral>, property: string, value: unknown): unknown {
  const column = m.connection.getMetadata(entity).findColumnWithPropertyName(property);
  if (!column) throw new Error(`no column ${property}`);
  return m.connection.driver.preparePersistentValue(value, column);
}

/** A text column's length in bytes on both databases (SQLite's LENGTH of text counts characters). */
export function byteLength(m: EntityManager, column: string): string {
  return m.connection.options.type === 'mysql' ? `LENGTH(${column})` : `LENGTH(CAST(${column} AS BLOB))`;
}

/**
 * The exact sum of a DECIMAL(18,4) column over the rows a statement reads, as
 * a whole number of ten-thousandths (read it with BigInt(String(value))).
 * MySQL/MariaDB sum decimals exactly; SQLite keeps these columns as doubles,
 * each the double nearest its 4-place value, so each is rounded to its
 * ten-thousandths before the sum, which then is an exact integer.
 */
export function sumTenThousandths(m: EntityManager, column: string): string {
  return m.connection.options.type === 'mysql' ? `CAST(COALESCE(SUM(${column}), 0) * 10000 AS SIGNED)` : `COALESCE(SUM(CAST(ROUND(${column} * 10000) AS INTEGER)), 0)`;
}

/**
 * `column + ?` for a DECIMAL(18,4) column, exactly, the parameter being the
 * amount as decimal text (`formatDecimal`). MySQL/MariaDB add decimals
 * exactly once the text is cast to DECIMAL (text alone would be added as a
 * double). SQLite keeps these columns as doubles: the sum is rounded to 4
 * places, which is the double nearest the exact sum, the value the service
 * would have written itself.
 */
export function plusDecimal(m: EntityManager, column: string): string {
  return m.connection.options.type === 'mysql' ? `${column} + CAST(? AS DECIMAL(18,4))` : `ROUND(${column} + ?, 4)`;
}

/** One parameterised statement, to run now or with the commit (TransactionContext `later`). */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * The rows of an entity as one INSERT: the columns are those the first row
 * gives a value (every row gives the same), each value stored as the driver
 * stores it (`columnValue`).
 */
export function insertStatement<T extends ObjectLiteral>(m: EntityManager, entity: EntityTarget<T>, values: Array<Partial<T>>): Statement {
  const metadata = m.connection.getMetadata(entity);
  const driver = m.connection.driver;
  const columns = metadata.columns.filter((c) => !c.isGenerated && c.asExpression === undefined && values[0][c.propertyName as keyof T] !== undefined);
  const row = `(${columns.map(() => '?').join(', ')})`;
  const sql = `INSERT INTO ${driver.escape(metadata.tableName)} (${columns.map((c) => driver.escape(c.databaseName)).join(', ')}) VALUES ${values.map(() => row).join(', ')}`;
  const params = values.flatMap((v) => columns.map((c) => driver.preparePersistentValue(v[c.propertyName as keyof T], c)));
  return { sql, params };
}

/**
 * Inserts rows of an entity in one statement in the transaction of `m`.
 * Returns the key the database generated for a single row (MySQL's insert
 * id, SQLite's last row id).
 */
export async function insertRows<T extends ObjectLiteral>(m: EntityManager, entity: EntityTarget<T>, values: Array<Partial<T>>): Promise<number> {
  if (!m.queryRunner) throw new Error('insertRows() writes in a transaction: pass its manager');
  const { sql, params } = insertStatement(m, entity, values);
  const result = await m.queryRunner.query(sql, params, true);
  const raw = result.raw as { insertId?: number } | number | bigint;
  return Number(typeof raw === 'object' ? raw.insertId : raw);
}

/** Sets these properties on the entity's rows whose `key` is one of `keys`, as one UPDATE. */
export function updateStatement<T extends ObjectLiteral>(m: EntityManager, entity: EntityTarget<T>, set: Partial<T>, key: keyof T & string, keys: unknown[]): Statement {
  const metadata = m.connection.getMetadata(entity);
  const driver = m.connection.driver;
  const column = (property: string) => {
    const found = metadata.findColumnWithPropertyName(property);
    if (!found) throw new Error(`no column ${property} in ${metadata.tableName}`);
    return found;
  };
  const changed = Object.keys(set).filter((p) => set[p as keyof T] !== undefined).map(column);
  const keyColumn = column(key);
  const sql = `UPDATE ${driver.escape(metadata.tableName)} SET ${changed.map((c) => `${driver.escape(c.databaseName)} = ?`).join(', ')} WHERE ${driver.escape(keyColumn.databaseName)} IN (${keys.map(() => '?').join(', ')})`;
  const params = [...changed.map((c) => driver.preparePersistentValue(set[c.propertyName as keyof T], c)), ...keys.map((k) => driver.preparePersistentValue(k, keyColumn))];
  return { sql, params };
}

/** `updateStatement` run now in the transaction of `m`; returns the rows changed. */
export function updateRows<T extends ObjectLiteral>(m: EntityManager, entity: EntityTarget<T>, set: Partial<T>, key: keyof T & string, keys: unknown[]): Promise<number> {
  const { sql, params } = updateStatement(m, entity, set, key, keys);
  return execute(m, sql, params);
}
