import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // The dashboard lists payment intents of one mode, newest first (docs/decisions/0140): it walks
  // this index in (created_at, id) order and stops after a page. A status filter walks it too:
  // one more index on every create was not worth a faster rare filter (issue 14).
  await db.schema
    .createIndex('payment_intents_account_mode_created')
    .on('payment_intents')
    .columns(['account_id', 'mode', 'created_at', 'id'])
    .execute();
  // Finding an order by the merchant's reference or external id is a lookup, not a scan,
  // already in page order; partial, so intents without one cost nothing to write.
  await db.schema
    .createIndex('payment_intents_reference')
    .on('payment_intents')
    .columns(['account_id', 'reference', 'created_at', 'id'])
    .where(sql.ref('reference'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('payment_intents_externalid')
    .on('payment_intents')
    .columns(['account_id', 'externalid', 'created_at', 'id'])
    .where(sql.ref('externalid'), 'is not', null)
    .execute();
  // One-time tokens of the dashboard's create forms (docs/decisions/0141): the first post of a
  // token claims it, a second finds it and is sent to what the first one made.
  await db.schema
    .createTable('dashboard_form_uses')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('session_digest', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('dashboard_form_uses_pk', ['account_id', 'token'])
    .execute();
  await db.schema.createIndex('dashboard_form_uses_created').on('dashboard_form_uses').column('created_at').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('dashboard_form_uses').execute();
  for (const name of [
    'payment_intents_externalid',
    'payment_intents_reference',
    'payment_intents_account_mode_created',
  ]) {
    await db.schema.dropIndex(name).execute();
  }
}
