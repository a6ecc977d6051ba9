import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // One dashboard password per account: an scrypt hash with its own salt and parameters.
  await db.schema
    .createTable('dashboard_passwords')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Sessions by the SHA-256 digest of the cookie's token: a database copy signs nobody in.
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_account').on('dashboard_sessions').column('account_id').execute();
  // Failed sign-ins, counted per account (its email) and per client address over 15 minutes.
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_failures_email')
    .on('sign_in_failures')
    .columns(['email', 'failed_at'])
    .execute();
  await db.schema
    .createIndex('sign_in_failures_ip')
    .on('sign_in_failures')
    .columns(['client_ip', 'failed_at'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('sign_in_failures').execute();
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.dropTable('dashboard_passwords').execute();
}
