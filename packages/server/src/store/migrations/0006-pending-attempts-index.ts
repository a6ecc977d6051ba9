import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // The reconciler asks every 30 s, on every process, for attempts still pending. They are
  // a handful among millions of finished ones: a partial index keeps that one small read.
  await db.schema
    .createIndex('transactions_pending')
    .on('transactions')
    .columns(['created_at', 'id'])
    .where(sql.ref('status'), '=', 10)
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('transactions_pending').execute();
}
