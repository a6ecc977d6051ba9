import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

/**
 * Issue 25 items 5 and 6: when a session last proved its password (sensitive dashboard actions
 * ask again after a while), and the append-only audit trail (decision 0205).
 */
export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('dashboard_sessions').addColumn('password_at', 'bigint').execute();
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('client_network', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_events_account')
    .on('audit_events')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('audit_events_created').on('audit_events').column('created_at').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
  await db.schema.alterTable('dashboard_sessions').dropColumn('password_at').execute();
}
