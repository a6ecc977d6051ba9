import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // The replay cache of card ciphertexts (docs/decisions/0080): one row per JWE `jti` the
  // confirm endpoint accepted. The primary key is what refuses a second use, in every process.
  await db.schema
    .createTable('card_ciphertext_uses')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('card_ciphertext_uses_expiry').on('card_ciphertext_uses').column('expires_at').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('card_ciphertext_uses').execute();
}
