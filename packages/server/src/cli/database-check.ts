import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import { isPostgresUrl, openDatabase } from '../store/database.ts';

/** The database of a configuration as a person reads it: an absolute SQLite path, or a URL without its password. */
export function databaseLabel(url: string): string {
  if (!isPostgresUrl(url)) return `${resolve(url)} (SQLite)`;
  const safe = new URL(url);
  safe.password = '';
  return `${safe} (PostgreSQL)`;
}

/** Thrown by a command that needs an existing Obolus database and finds none. */
export class NoDatabaseError extends Error {
  constructor(url: string) {
    super(
      `no Obolus database at ${databaseLabel(url)}. ` +
        'Run the command in the directory where `obolus serve` runs, or set OBOLUS_DATABASE_URL to its database ' +
        '(a SQLite path or a postgres:// URL); `obolus serve` or `obolus migrate` creates a new one.',
    );
  }
}

/**
 * Refuses to go on when the configuration's database does not exist yet, so that a command
 * run in the wrong directory (or with the wrong URL) never creates an empty database and a
 * master key there (issue 29). Only `serve` and `migrate` create databases. On SQLite the
 * file must exist; on PostgreSQL, Obolus's migration table in the connection's schema.
 */
export async function requireExistingDatabase(config: Config): Promise<void> {
  if (!isPostgresUrl(config.databaseUrl)) {
    if (!existsSync(resolve(config.databaseUrl))) throw new NoDatabaseError(config.databaseUrl);
    return;
  }
  const database = openDatabase(config.databaseUrl, { poolSize: 1, timeouts: config.databaseTimeouts });
  try {
    const { rows } = await sql<{ table: string | null }>`select to_regclass('kysely_migration')::text as table`.execute(
      database.db,
    );
    if (!rows[0]?.table) throw new NoDatabaseError(config.databaseUrl);
  } finally {
    await database.close();
  }
}
