import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // Why an attempt was raised for an operator's review (null: its outcome was unknown, as
  // before); the acquirer's other payments for the attempt and how each was given back
  // (JSON); and when the reconciler must look at the attempt at the acquirer again (a late
  // approval or a duplicate still to give back, or a payment sent twice). Decision 0192.
  for (const [column, type] of [
    ['review_reason', 'text'],
    ['duplicate_payments', 'text'],
    ['follow_up_at', 'bigint'],
  ] as const) {
    await db.schema.alterTable('transactions').addColumn(column, type).execute();
  }
  // The reconciler asks every 30 s, on every process, for attempts due a follow-up: a handful.
  await db.schema
    .createIndex('transactions_follow_up')
    .on('transactions')
    .columns(['follow_up_at', 'id'])
    .where(sql.ref('follow_up_at'), 'is not', null)
    .execute();
  // Checkout.com's refund events name the refund by the action id its refund call answered.
  await db.schema.createIndex('refunds_processor_ref').on('refunds').column('processor_ref').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('refunds_processor_ref').execute();
  await db.schema.dropIndex('transactions_follow_up').execute();
  for (const column of ['follow_up_at', 'duplicate_payments', 'review_reason']) {
    await db.schema.alterTable('transactions').dropColumn(column).execute();
  }
}
