import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // A partial capture (decision 0241): `amount` becomes what was captured; the acquirer still
  // names the payment by the amount it authorized, which the matching of its answers needs.
  await db.schema.alterTable('transactions').addColumn('amount_authorized', 'bigint').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('amount_authorized').execute();
}
