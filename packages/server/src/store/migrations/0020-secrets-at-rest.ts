import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

/**
 * The master key (decision 0070) that sealed a row's secrets; null: still in clear, as rows
 * written before this migration are until the next start seals them (store/repos/sealed-secrets.ts).
 */
export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('encryption_keys').addColumn('key_version', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('key_version', 'text').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('encryption_keys').dropColumn('key_version').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('key_version').execute();
}
