import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

/**
 * The dashboard's payments filtered by a status few intents have (decision 0263): without an
 * index the newest-first walk of the account's intents reads all of them to find a page of
 * canceled ones. A partial index per such status holds only its intents, so creating an
 * intent (requires_payment) and paying it (processing, then succeeded) write none of them.
 */
const RARE_STATUSES = ['requires_capture', 'failed', 'canceled', 'expired'] as const;

export async function up(db: Db): Promise<void> {
  for (const status of RARE_STATUSES) {
    await db.schema
      .createIndex(`payment_intents_${status}`)
      .on('payment_intents')
      .columns(['account_id', 'mode', 'created_at', 'id'])
      .where(sql.ref('status'), '=', sql.lit(status))
      .execute();
  }
}

export async function down(db: Db): Promise<void> {
  for (const status of RARE_STATUSES) await db.schema.dropIndex(`payment_intents_${status}`).execute();
}
