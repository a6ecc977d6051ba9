import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // Intents the hosted checkout created per client address and fixed window
  // (docs/decisions/0083): one counter row, incremented atomically by every process.
  await db.schema
    .createTable('checkout_start_windows')
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('checkout_start_windows_pk', ['address', 'window_start'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('checkout_start_windows').execute();
}
