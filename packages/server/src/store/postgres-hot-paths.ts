import type pg from 'pg';
import type { EventDraft } from '../domain/events.ts';
import { eventRow, type HotPaths, INTENT_COLUMNS } from './hot-paths.ts';
import type { AccountsTable, PaymentIntentsTable, TransactionsTable } from './schema.ts';

const EVENT_COLUMNS = ['id', 'account_id', 'type', 'mode', 'object_type', 'object_id', 'data', 'created_at'] as const;

const placeholders = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');

/**
 * An event's insert, its parameters from `$from`: its sequence number is the object's next, and
 * an event of an account with no enabled endpoint in its mode is born fanned out (decision 0120).
 */
function appendEvent(from: number, source: string): string {
  // In INSERT … SELECT the parameters take no type from the columns: each is cast.
  const p = (column: (typeof EVENT_COLUMNS)[number]) =>
    `$${from + EVENT_COLUMNS.indexOf(column)}::${column === 'created_at' ? 'bigint' : 'text'}`;
  return `insert into events
    (id, account_id, type, mode, object_type, object_id, object_seq, data, created_at, fanned_out_at)
    select ${p('id')}, ${p('account_id')}, ${p('type')}, ${p('mode')}, ${p('object_type')}, ${p('object_id')},
      (select coalesce(max(object_seq), 0) + 1 from events where object_id = ${p('object_id')}),
      ${p('data')}, ${p('created_at')},
      case when exists (select 1 from webhook_endpoints
        where account_id = ${p('account_id')} and mode = ${p('mode')} and enabled = 1)
      then null else ${p('created_at')} end
    ${source}`;
}

/**
 * Creating an intent with its one event is one statement, hence one round trip and one
 * implicit transaction: the intent is inserted in a CTE and the event from it.
 */
const CREATE_INTENT_WITH_EVENT = `with intent as (
    insert into payment_intents (${INTENT_COLUMNS.join(', ')})
    values (${placeholders(1, INTENT_COLUMNS.length)})
    returning id
  )
  ${appendEvent(INTENT_COLUMNS.length + 1, 'from intent')}`;

/**
 * The hot paths on PostgreSQL as named prepared statements: each connection of the pool parses
 * and plans them once, and creating an intent with its event takes one round trip instead of
 * the six of a Kysely transaction (decision 0181).
 */
export class PostgresHotPaths implements HotPaths {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async createIntent(row: PaymentIntentsTable, draft: EventDraft, now: number): Promise<void> {
    const event = eventRow(draft, now);
    await this.#pool.query({
      name: 'hot_create_intent',
      text: CREATE_INTENT_WITH_EVENT,
      values: [...INTENT_COLUMNS.map((column) => row[column]), ...EVENT_COLUMNS.map((column) => event[column])],
    });
  }

  async findAccount(id: string): Promise<AccountsTable | undefined> {
    return this.#one<AccountsTable>('hot_find_account', 'select * from accounts where id = $1', [id]);
  }

  async findIntent(accountId: string, id: string): Promise<PaymentIntentsTable | undefined> {
    return this.#one<PaymentIntentsTable>(
      'hot_find_intent',
      'select * from payment_intents where account_id = $1 and id = $2',
      [accountId, id],
    );
  }

  async findTransaction(accountId: string, id: string): Promise<TransactionsTable | undefined> {
    return this.#one<TransactionsTable>(
      'hot_find_transaction',
      'select * from transactions where account_id = $1 and id = $2',
      [accountId, id],
    );
  }

  async #one<T>(name: string, text: string, values: unknown[]): Promise<T | undefined> {
    const result = await this.#pool.query({ name, text, values });
    return result.rows[0] as T | undefined;
  }
}
