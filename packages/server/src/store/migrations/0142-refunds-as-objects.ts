import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // Refunds as Stripe's objects (decision 0243): their intent (to list by it), a reason, metadata.
  await db.schema.alterTable('refunds').addColumn('payment_intent_id', 'text').execute();
  await db.schema.alterTable('refunds').addColumn('reason', 'text').execute();
  await db.schema
    .alterTable('refunds')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await sql`update refunds set payment_intent_id =
    (select payment_intent_id from transactions where transactions.id = refunds.transaction_id)`.execute(db);
  // The list, newest first, of an account, and of one intent.
  await db.schema
    .createIndex('refunds_account_created')
    .on('refunds')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('refunds_intent')
    .on('refunds')
    .columns(['account_id', 'payment_intent_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('refunds_intent').execute();
  await db.schema.dropIndex('refunds_account_created').execute();
  for (const column of ['metadata', 'reason', 'payment_intent_id']) {
    await db.schema.alterTable('refunds').dropColumn(column).execute();
  }
}
