import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

/**
 * The Idempotency-Key a new intent or refund was made under, written in the same database
 * transaction as the row: a retry that takes over the key of a request that died after its
 * commit finds what it made instead of making it twice (decision 0170). Partial indexes:
 * requests without a key cost nothing.
 */
export async function up(db: Db): Promise<void> {
  for (const table of ['payment_intents', 'refunds']) {
    await db.schema.alterTable(table).addColumn('idempotency_key', 'text').execute();
    await db.schema
      .createIndex(`${table}_idempotency_key`)
      .on(table)
      .columns(['account_id', 'idempotency_key'])
      .where(sql.ref('idempotency_key'), 'is not', null)
      .execute();
  }
}

export async function down(db: Db): Promise<void> {
  for (const table of ['payment_intents', 'refunds']) {
    await db.schema.dropIndex(`${table}_idempotency_key`).execute();
    await db.schema.alterTable(table).dropColumn('idempotency_key').execute();
  }
}
