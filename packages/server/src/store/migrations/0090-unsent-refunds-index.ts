import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // The reconciler asks every 30 s, on every process, for live refunds never answered by the
  // acquirer (pending, no acquirer id): a handful among all refunds, so a partial index.
  await db.schema
    .createIndex('refunds_unsent')
    .on('refunds')
    .columns(['created_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .where(sql.ref('processor_ref'), 'is', null)
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('refunds_unsent').execute();
}
