import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // A real acquirer's own ids of an attempt (Stripe: PaymentIntent, charge), the card's
  // funding, the issuer page of a live 3-D Secure challenge, when an attempt still unknown
  // was flagged for review, and the reversal of an approval the shopper was told had failed.
  for (const [column, type] of [
    ['processor_payment_ref', 'text'],
    ['processor_charge_ref', 'text'],
    ['card_funding', 'text'],
    ['challenge_redirect_url', 'text'],
    ['review_requested_at', 'bigint'],
    ['reversal', 'text'],
  ] as const) {
    await db.schema.alterTable('transactions').addColumn(column, type).execute();
  }
  // Stripe's webhooks name a PaymentIntent or a charge: find the attempt by either.
  await db.schema
    .createIndex('transactions_processor_payment_ref')
    .on('transactions')
    .columns(['processor', 'processor_payment_ref'])
    .execute();
  await db.schema
    .createIndex('transactions_processor_charge_ref')
    .on('transactions')
    .columns(['processor', 'processor_charge_ref'])
    .execute();
  // A refund made at an acquirer has its id there and may be pending or fail later.
  await db.schema.alterTable('refunds').addColumn('processor_ref', 'text').execute();
  await db.schema
    .alterTable('refunds')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('succeeded'))
    .execute();
  // Incoming acquirer events already handled: a duplicate delivery is dropped by its id.
  await db.schema
    .createTable('processor_events')
    .addColumn('processor', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('processor_events_pk', ['processor', 'event_id'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('processor_events').execute();
  await db.schema.alterTable('refunds').dropColumn('status').execute();
  await db.schema.alterTable('refunds').dropColumn('processor_ref').execute();
  await db.schema.dropIndex('transactions_processor_charge_ref').execute();
  await db.schema.dropIndex('transactions_processor_payment_ref').execute();
  for (const column of [
    'reversal',
    'review_requested_at',
    'challenge_redirect_url',
    'card_funding',
    'processor_charge_ref',
    'processor_payment_ref',
  ]) {
    await db.schema.alterTable('transactions').dropColumn(column).execute();
  }
}
