import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations describe the schema as it was then
type Db = Kysely<any>;

/*
 * Daily totals of transactions (decision 0261): per account, mode, UTC day of the transaction's
 * creation (what the dashboard's home has always grouped by) and currency, what was captured,
 * what finished without capturing, what was refunded and what was charged back. Kept by
 * triggers on `transactions`, so that every statement that inserts, changes or deletes a
 * transaction (the confirm's hot paths on both engines, captures, refunds, chargebacks,
 * reconciliation, the sweepers) moves the totals in its own database transaction, with no
 * code path able to forget it. The dashboard reads at most 30 days of rows instead of a
 * month of transactions.
 *
 * `slot` spreads one day's row over several on PostgreSQL (by the backend's process id), so
 * that concurrent confirms of one account do not queue on one row lock until each commit;
 * readers sum the slots. SQLite has one writer: one slot.
 */

const DAY_MS = 86_400_000;
/** Rows per account, mode, day and currency on PostgreSQL. */
const PG_SLOTS = 8;
const CAPTURED = '20, 40, 41, 50';
const PENDING = 10;
const CHARGEBACK = 50;

/**
 * The totals one transaction row contributes, as SQL in TOTALS' order, over the row `of`
 * (NEW. or OLD. in a trigger; '' over the table). Captured: Settled, Refunded, Partially
 * refunded, Chargeback. Unpaid: any other status but Pending, as the home's success rate has
 * always counted it.
 */
function contribution(of: 'NEW.' | 'OLD.' | ''): string[] {
  const captured = `${of}status in (${CAPTURED})`;
  return [
    `case when ${captured} then 1 else 0 end`,
    `case when ${captured} then ${of}amount else 0 end`,
    `case when ${of}status <> ${PENDING} and not (${captured}) then 1 else 0 end`,
    `${of}refunded_amount`,
    `case when ${of}status = ${CHARGEBACK} then 1 else 0 end`,
    `case when ${of}status = ${CHARGEBACK} then ${of}amount else 0 end`,
  ];
}

const TOTALS = [
  'settled_count',
  'settled_amount',
  'unpaid_count',
  'refunded_amount',
  'chargeback_count',
  'chargeback_amount',
] as const;
const KEY = 'account_id, mode, day, currency, slot';
const ADD = TOTALS.map((c) => `${c} = daily_totals.${c} + excluded.${c}`).join(', ');

/** One upsert adding `values` (SQL expressions, in TOTALS' order) to the row of `row`'s key. */
function upsert(row: 'NEW.' | 'OLD.', slot: string, values: string[]): string {
  return `insert into daily_totals (${KEY}, ${TOTALS.join(', ')})
    values (${row}account_id, ${row}mode, ${row}created_at / ${DAY_MS}, ${row}currency, ${slot}, ${values.join(', ')})
    on conflict (${KEY}) do update set ${ADD}`;
}

const negated = (values: string[]) => values.map((v) => `-(${v})`);
const difference = (a: string[], b: string[]) => a.map((v, i) => `(${v}) - (${b[i]})`);
/** A change that moves a total: only those fire the update trigger. */
const MOVES = (distinct: string) =>
  ['status', 'amount', 'refunded_amount'].map((c) => `OLD.${c} ${distinct} NEW.${c}`).join(' or ');

async function sqliteTriggers(db: Db): Promise<void> {
  // A pending attempt (what create writes) counts for nothing: its insert skips the upsert.
  await sql
    .raw(`create trigger daily_totals_insert after insert on transactions
    when NEW.status <> ${PENDING}
    begin ${upsert('NEW.', '0', contribution('NEW.'))}; end`)
    .execute(db);
  // A transaction's account, mode, currency and creation time never change: one row moves.
  await sql
    .raw(`create trigger daily_totals_update after update of status, amount, refunded_amount on transactions
    when ${MOVES('is not')}
    begin ${upsert('NEW.', '0', difference(contribution('NEW.'), contribution('OLD.')))}; end`)
    .execute(db);
  await sql
    .raw(`create trigger daily_totals_delete after delete on transactions
    when OLD.status <> ${PENDING}
    begin ${upsert('OLD.', '0', negated(contribution('OLD.')))}; end`)
    .execute(db);
}

async function postgresTriggers(db: Db): Promise<void> {
  const slot = `pg_backend_pid() % ${PG_SLOTS}`;
  await sql
    .raw(`create function daily_totals_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${upsert('NEW.', slot, contribution('NEW.'))};
      elsif tg_op = 'UPDATE' then
        ${upsert('NEW.', slot, difference(contribution('NEW.'), contribution('OLD.')))};
      else
        ${upsert('OLD.', slot, negated(contribution('OLD.')))};
      end if;
      return null;
    end $$`)
    .execute(db);
  await sql
    .raw(`create trigger daily_totals_insert after insert on transactions
    for each row when (NEW.status <> ${PENDING}) execute function daily_totals_change()`)
    .execute(db);
  await sql
    .raw(`create trigger daily_totals_update after update of status, amount, refunded_amount on transactions
    for each row when (${MOVES('is distinct from')}) execute function daily_totals_change()`)
    .execute(db);
  await sql
    .raw(`create trigger daily_totals_delete after delete on transactions
    for each row when (OLD.status <> ${PENDING}) execute function daily_totals_change()`)
    .execute(db);
}

export async function up(db: Db): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  let table = db.schema
    .createTable('daily_totals')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    // The UTC day number of the transactions' creation: created_at / 86 400 000.
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull());
  for (const total of TOTALS) table = table.addColumn(total, 'bigint', (c) => c.notNull().defaultTo(0));
  await table.addPrimaryKeyConstraint('daily_totals_pk', ['account_id', 'mode', 'day', 'currency', 'slot']).execute();
  // The totals of what is there already, in the same transaction as the triggers that keep them.
  await sql
    .raw(`insert into daily_totals (${KEY}, ${TOTALS.join(', ')})
    select account_id, mode, created_at / ${DAY_MS}, currency, 0, ${contribution('')
      .map((total) => `sum(${total})`)
      .join(', ')}
    from transactions where status <> ${PENDING}
    group by account_id, mode, created_at / ${DAY_MS}, currency`)
    .execute(db);
  await (postgres ? postgresTriggers(db) : sqliteTriggers(db));
}

export async function down(db: Db): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const trigger of ['daily_totals_insert', 'daily_totals_update', 'daily_totals_delete']) {
    await sql.raw(`drop trigger ${trigger}${postgres ? ' on transactions' : ''}`).execute(db);
  }
  if (postgres) await sql`drop function daily_totals_change()`.execute(db);
  await db.schema.dropTable('daily_totals').execute();
}
