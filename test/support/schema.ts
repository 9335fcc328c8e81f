import type { DataSource } from 'typeorm';

/**
 * A database's schema as comparable text, one line per fact, sorted: tables,
 * columns (type, nullability, default, collation, generation), indexes
 * (columns in order, uniqueness, prefix), constraints (keys, foreign keys and
 * their rules, checks). The migrations table's rows are data, not schema.
 */
export async function schemaOf(ds: DataSource): Promise<string[]> {
  return ds.options.type === 'mysql' ? mysqlSchema(ds) : sqliteSchema(ds);
}

async function mysqlSchema(ds: DataSource): Promise<string[]> {
  const lines: string[] = [];
  const add = (kind: string, rows: Array<Record<string, unknown>>) => {
    for (const r of rows) lines.push(`${kind} ${JSON.stringify(r)}`);
  };
  const db = 'TABLE_SCHEMA = DATABASE()';
  add('table', await ds.query(`SELECT TABLE_NAME, ENGINE, TABLE_COLLATION FROM information_schema.TABLES WHERE ${db}`));
  add('column', await ds.query(
    'SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, CHARACTER_SET_NAME, COLLATION_NAME, EXTRA, GENERATION_EXPRESSION ' +
      `FROM information_schema.COLUMNS WHERE ${db}`,
  ));
  add('index', await ds.query(`SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE, SUB_PART, INDEX_TYPE FROM information_schema.STATISTICS WHERE ${db}`));
  add('constraint', await ds.query(
    'SELECT c.TABLE_NAME, c.CONSTRAINT_NAME, c.CONSTRAINT_TYPE, k.COLUMN_NAME, k.ORDINAL_POSITION, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME ' +
      'FROM information_schema.TABLE_CONSTRAINTS c LEFT JOIN information_schema.KEY_COLUMN_USAGE k ON k.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA ' +
      'AND k.TABLE_NAME = c.TABLE_NAME AND k.CONSTRAINT_NAME = c.CONSTRAINT_NAME WHERE c.CONSTRAINT_SCHEMA = DATABASE()',
  ));
  add('fk-rule', await ds.query('SELECT TABLE_NAME, CONSTRAINT_NAME, UPDATE_RULE, DELETE_RULE FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()'));
  add('check', await ds.query('SELECT TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()'));
  return lines.sort();
}

async function sqliteSchema(ds: DataSource): Promise<string[]> {
  const lines: string[] = [];
  const master: Array<{ type: string; name: string; tbl_name: string; sql: string | null }> = await ds.query(
    "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'sqlite_sequence'",
  );
  for (const m of master) lines.push(`${m.type} ${JSON.stringify(m)}`);
  for (const { name: table } of master.filter((m) => m.type === 'table')) {
    for (const c of await ds.query('SELECT * FROM pragma_table_xinfo(?)', [table])) lines.push(`column ${table} ${JSON.stringify(c)}`);
    for (const f of await ds.query('SELECT * FROM pragma_foreign_key_list(?)', [table])) lines.push(`foreign-key ${table} ${JSON.stringify(f)}`);
    for (const i of (await ds.query('SELECT * FROM pragma_index_list(?)', [table])) as Array<{ name: string }>) {
      lines.push(`index ${table} ${JSON.stringify(i)}`);
      for (const c of await ds.query('SELECT * FROM pragma_index_xinfo(?)', [i.name])) lines.push(`index-column ${i.name} ${JSON.stringify(c)}`);
    }
  }
  return lines.sort();
}
