import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

/**
 * Fixed-window counters every process shares (store/repos/rate-counters.ts): card-testing
 * failures per client network first; any limit keyed by (scope, subject) may use them.
 */
export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('rate_counters')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_counters_pk', ['scope', 'subject', 'window_start'])
    .execute();
  await db.schema.createIndex('rate_counters_expiry').on('rate_counters').column('expires_at').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('rate_counters').execute();
}
