import { type Kysely, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled_events', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    // Signing needs the secret itself, so it is stored as is (docs/decisions/0023).
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'bigint')
    .addColumn('failing_since', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_account_created')
    .on('webhook_endpoints')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    // The lease: whoever set lock_token may attempt the delivery until locked_until.
    .addColumn('locked_until', 'bigint')
    .addColumn('lock_token', 'text')
    .addColumn('first_attempted_at', 'bigint')
    .addColumn('last_attempted_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The fan-out makes one delivery per event and endpoint, even when two dispatchers race;
  // resends are extra deliveries of their own.
  await db.schema
    .createIndex('webhook_deliveries_fanout_once')
    .on('webhook_deliveries')
    .columns(['event_id', 'endpoint_id'])
    .unique()
    .where(sql.ref('origin'), '=', 'fanout')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .column('next_attempt_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').column('endpoint_id').execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    // When the delivery was to be tried again after this attempt; null once delivered or given up.
    .addColumn('next_attempt_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_endpoint_time')
    .on('webhook_attempts')
    .columns(['endpoint_id', 'attempted_at', 'id'])
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').column('delivery_id').execute();

  // Fan-out progress on the outbox itself: set in the transaction that inserts the deliveries.
  await db.schema.alterTable('events').addColumn('fanned_out_at', 'bigint').execute();
  await db.schema.alterTable('events').addColumn('fanout_locked_until', 'bigint').execute();
  await db.schema
    .createIndex('events_fanout_pending')
    .on('events')
    .columns(['created_at', 'id'])
    .where(sql.ref('fanned_out_at'), 'is', null)
    .execute();
  await db.schema.createIndex('events_created').on('events').column('created_at').execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('events_created').execute();
  await db.schema.dropIndex('events_fanout_pending').execute();
  await db.schema.alterTable('events').dropColumn('fanout_locked_until').execute();
  await db.schema.alterTable('events').dropColumn('fanned_out_at').execute();
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']) {
    await db.schema.dropTable(table).execute();
  }
}
