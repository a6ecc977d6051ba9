import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // What the payments flow needs on the intent: the current attempt and the failure count
  // that card-testing protection caps.
  await db.schema.alterTable('payment_intents').addColumn('last_transaction_id', 'text').execute();
  await db.schema
    .alterTable('payment_intents')
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('payment_intents_expiry')
    .on('payment_intents')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('payment_intent_id', 'text', (c) => c.notNull().references('payment_intents.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('fee_amount', 'integer', (c) => c.notNull())
    .addColumn('fee_bps', 'integer', (c) => c.notNull())
    .addColumn('fee_fixed_minor', 'integer', (c) => c.notNull())
    .addColumn('refunded_amount', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('card_bin', 'text', (c) => c.notNull())
    .addColumn('card_last4', 'text', (c) => c.notNull())
    .addColumn('card_length', 'integer', (c) => c.notNull())
    .addColumn('card_brand', 'text', (c) => c.notNull())
    .addColumn('card_exp_month', 'integer', (c) => c.notNull())
    .addColumn('card_exp_year', 'integer', (c) => c.notNull())
    .addColumn('cardholder', 'text', (c) => c.notNull())
    .addColumn('card_country', 'text')
    .addColumn('card_bank', 'text')
    .addColumn('externalid', 'text')
    .addColumn('product_id', 'text')
    .addColumn('chargeback', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('decline_code', 'text')
    .addColumn('decline_message', 'text')
    .addColumn('three_ds', 'text')
    .addColumn('authorization_code', 'text')
    .addColumn('processor', 'text', (c) => c.notNull())
    .addColumn('challenge_token', 'text', (c) => c.unique())
    .addColumn('processor_challenge_ref', 'text')
    .addColumn('dispute_at', 'bigint')
    .addColumn('client_ip', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('transactions_account_created')
    .on('transactions')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('transactions_intent').on('transactions').column('payment_intent_id').execute();
  await db.schema.createIndex('transactions_dispute').on('transactions').column('dispute_at').execute();

  // The outbox: every status change writes its event here in the same database transaction.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('object_seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_object_seq').on('events').columns(['object_id', 'object_seq']).unique().execute();
  await db.schema
    .createIndex('events_account_created')
    .on('events')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('encryption_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // null while current; once rotated out it still decrypts until then.
    .addColumn('decrypts_until', 'bigint')
    .execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of ['encryption_keys', 'events', 'transactions']) await db.schema.dropTable(table).execute();
  await db.schema.dropIndex('payment_intents_expiry').execute();
  await db.schema.alterTable('payment_intents').dropColumn('failed_attempts').execute();
  await db.schema.alterTable('payment_intents').dropColumn('last_transaction_id').execute();
}
