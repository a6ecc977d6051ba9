import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // Stripe's capture_method (decision 0241): an approval of a manual intent waits for the
  // merchant's capture until capture_before, then is voided. A cancel says when and why.
  await db.schema
    .alterTable('payment_intents')
    .addColumn('capture_method', 'text', (c) => c.notNull().defaultTo('automatic'))
    .execute();
  for (const [column, type] of [
    ['capture_before', 'bigint'],
    ['canceled_at', 'bigint'],
    ['cancellation_reason', 'text'],
  ] as const) {
    await db.schema.alterTable('payment_intents').addColumn(column, type).execute();
  }
  // The sweeper asks for authorizations past their window: a handful at any time.
  await db.schema
    .createIndex('payment_intents_capture_before')
    .on('payment_intents')
    .columns(['capture_before', 'id'])
    .where(sql.ref('capture_before'), 'is not', null)
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('payment_intents_capture_before').execute();
  for (const column of ['cancellation_reason', 'canceled_at', 'capture_before', 'capture_method']) {
    await db.schema.alterTable('payment_intents').dropColumn(column).execute();
  }
}
