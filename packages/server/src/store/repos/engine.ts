import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * PostgreSQL claims rows with FOR UPDATE SKIP LOCKED so that concurrent dispatchers pass
 * each other by; SQLite has one writer at a time, so its single UPDATE … RETURNING is the claim.
 */
// biome-ignore lint/suspicious/noExplicitAny: any database will do, only the dialect is looked at
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
