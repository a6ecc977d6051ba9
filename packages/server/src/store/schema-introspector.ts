import {
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  type Kysely,
  PostgresDialect,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  table: string;
  table_type: string;
  schema: string;
  column: string;
  not_null: boolean;
  has_default: boolean;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: string | null;
}

/**
 * What Kysely's migrator sees of a PostgreSQL database: Obolus's own schema (the first of its
 * search_path) and nothing else. Kysely's own introspector reads the tables of every schema,
 * and a schema another application (or another test run) drops during that read fails it
 * ('schema "…" does not exist'), which stopped Obolus from starting. Same answers as Kysely's
 * PostgresIntrospector, limited to `current_schema()`.
 */
export class SchemaScopedIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.#db);
    return rows.filter((row) => row.name !== null);
  }

  async getTables(options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as table, c.relkind as table_type, ns.nspname as schema,
        a.attname as column, a.attnotnull as not_null, a.atthasdef as has_default,
        typ.typname as type, dtns.nspname as type_schema,
        col_description(a.attrelid, a.attnum) as column_description,
        pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname) as auto_incrementing
      from pg_catalog.pg_attribute a
        join pg_catalog.pg_class c on a.attrelid = c.oid
        join pg_catalog.pg_namespace ns on c.relnamespace = ns.oid
        join pg_catalog.pg_type typ on a.atttypid = typ.oid
        join pg_catalog.pg_namespace dtns on typ.typnamespace = dtns.oid
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p', 'f')
        and a.attnum >= 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(this.#db);
    const internal = new Set(['kysely_migration', 'kysely_migration_lock']);
    return tablesOf(rows.filter((row) => options?.withInternalKyselyTables || !internal.has(row.table)));
  }
}

function tablesOf(rows: ColumnRow[]): TableMetadata[] {
  const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>();
  for (const row of rows) {
    let table = tables.get(row.table);
    if (!table) {
      table = {
        name: row.table,
        schema: row.schema,
        isView: row.table_type === 'v',
        isForeign: row.table_type === 'f',
        columns: [],
      };
      tables.set(row.table, table);
    }
    table.columns.push({
      name: row.column,
      dataType: row.type,
      dataTypeSchema: row.type_schema,
      isAutoIncrementing: row.auto_incrementing !== null,
      isNullable: !row.not_null,
      hasDefaultValue: row.has_default,
      ...(row.column_description === null ? {} : { comment: row.column_description }),
    });
  }
  return [...tables.values()];
}

/** PostgresDialect whose introspector sees only the current schema. */
export class SchemaScopedPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SchemaScopedIntrospector(db);
  }
}
