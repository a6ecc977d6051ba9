import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import type pg from 'pg';
import { holdDatabase } from './database-holders.ts';
import { ownerOnly } from './file-modes.ts';
import { migrationProvider } from './migrations/index.ts';
import { type DatabaseTimeouts, DEFAULT_DATABASE_TIMEOUTS, openPostgresPool } from './postgres-pool.ts';
import type { Database } from './schema.ts';
import { SchemaScopedPostgresDialect } from './schema-introspector.ts';
import type { SqliteConnections } from './sqlite-hot-paths.ts';
import { SqliteWriter } from './sqlite-writer.ts';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  engine: Engine;
  /** Where the data lives, for humans (never carries a password). */
  location: string;
  /** SQLite only: the native connections, for the hot paths (store/sqlite-hot-paths.ts). */
  sqlite?: SqliteConnections;
  /** PostgreSQL only: the pool, for the hot paths (store/postgres-hot-paths.ts). */
  postgres?: { pool: pg.Pool };
  close(): Promise<void>;
}

export const DEFAULT_SQLITE_PATH = './data/obolus.db';

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export interface OpenOptions {
  /** PostgreSQL only: the schema to work in (tests give every run its own). */
  schema?: string;
  /** PostgreSQL only: the pool size of this process. */
  poolSize?: number;
  /** PostgreSQL only: connect and statement timeouts (DEFAULT_DATABASE_TIMEOUTS). */
  timeouts?: DatabaseTimeouts;
  /** PostgreSQL only: told when a connection breaks (the database went away). */
  onConnectionLost?: (error: Error) => void;
}

export function openDatabase(url: string = DEFAULT_SQLITE_PATH, options: OpenOptions = {}): DatabaseHandle {
  return isPostgresUrl(url) ? openPostgres(url, options) : openSqlite(url);
}

function openSqlite(path: string): DatabaseHandle {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  ownerOnly(file);
  const writer = new SQLite(file);
  // WAL lets readers run beside the writer; FULL makes every commit durable before we answer.
  writer.pragma('journal_mode = WAL');
  ownerOnly(file);
  writer.pragma('synchronous = FULL');
  writer.pragma('busy_timeout = 5000');
  writer.pragma('foreign_keys = ON');
  // A write burst grows the WAL; after each checkpoint it is cut back to this size, so that
  // reads after the burst do not search (and the disk does not keep) a long log.
  writer.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  writer.pragma(`cache_size = ${PAGE_CACHE}`);
  // The reader sees the last commit, never a group commit in flight, and never waits for one.
  const reader = new SQLite(file, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  reader.pragma(`cache_size = ${PAGE_CACHE}`);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(writer) }) });
  // The hot write path's own connection, on a thread of its own (store/sqlite-writer.ts).
  const thread = new SqliteWriter(file);
  const released = holdDatabase(file);
  const close = async () => {
    await thread.close();
    await db.destroy();
    reader.close();
    released();
  };
  return { db, engine: 'sqlite', location: file, sqlite: { writer, reader, thread }, close };
}

const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/**
 * Each connection's page cache, in KiB (negative: SQLite's convention for a size, not pages).
 * SQLite's default of 2 MiB holds less than one index of a busy store: every insert into an
 * index keyed by a random id then read its pages back from the OS (decision 0183).
 */
export const PAGE_CACHE = -32 * 1024;

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; preparing costs more than running a small query. The
 * same SQL text always gets the same prepared statement (Kysely never streams from one, so
 * a statement is never in use twice at once). Transactions begin IMMEDIATE: with a second
 * writer (the writer thread), a deferred one that read first could not upgrade to write
 * (SQLITE_BUSY without waiting); an immediate one waits its turn (busy_timeout).
 */
function withStatementCache(sqlite: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare: (text: string) => {
      const source = /^begin$/i.test(text.trim()) ? 'begin immediate' : text;
      let statement = cache.get(source);
      if (!statement) {
        statement = sqlite.prepare(source);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(source, statement);
      }
      return statement;
    },
  };
}

function openPostgres(url: string, options: OpenOptions): DatabaseHandle {
  const pool = openPostgresPool(url, {
    max: options.poolSize ?? 10,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    timeouts: options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS,
    ...(options.onConnectionLost ? { onConnectionLost: options.onConnectionLost } : {}),
  });
  const db = new Kysely<Database>({ dialect: new SchemaScopedPostgresDialect({ pool }) });
  const safe = new URL(url);
  safe.password = '';
  return { db, engine: 'postgres', location: safe.toString(), postgres: { pool }, close: () => db.destroy() };
}

export interface MigrationReport {
  applied: string[];
}

/** Brings the schema to the latest version; safe to run from several processes at once. */
export async function migrateToLatest(db: Kysely<Database>, onStep?: (name: string) => void): Promise<MigrationReport> {
  // Kysely looks for its bookkeeping tables in every schema unless told which: name ours,
  // or another schema's tables (another app, another test run) would be taken for ours.
  const schema = await currentSchema(db);
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const applied: string[] = [];
  for (const result of results ?? []) {
    if (result.status === 'Success') {
      applied.push(result.migrationName);
      onStep?.(result.migrationName);
    }
  }
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied };
}

async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  try {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema;
  } catch {
    return undefined; // SQLite has no schemas
  }
}
