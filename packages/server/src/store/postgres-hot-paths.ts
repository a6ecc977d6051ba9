import type pg from 'pg';
import type { EventDraft } from '../domain/events.ts';
import type { AccountId } from '../ids.ts';
import { endOfTurn } from './end-of-turn.ts';
import { appendEventsAfter, eventParams, eventRow } from './event-insert.ts';
import { type HotPaths, INTENT_COLUMNS } from './hot-paths.ts';
import { PostgresAttempts } from './postgres-attempts.ts';
import type { AccountsTable, PaymentIntentsTable, TransactionsTable } from './schema.ts';

const placeholders = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');

/**
 * Creating an intent with its one event is one statement, hence one round trip and one
 * implicit transaction: the intent is inserted in a CTE, the event by the statement every
 * write's events use (a failed intent insert fails the whole statement).
 */
const CREATE_INTENT_WITH_EVENT = appendEventsAfter(
  `intent as (
    insert into payment_intents (${INTENT_COLUMNS.join(', ')})
    values (${placeholders(1, INTENT_COLUMNS.length)})
    returning id
  )`,
  INTENT_COLUMNS.length,
);

/**
 * The hot paths on PostgreSQL as named prepared statements: each connection of the pool parses
 * and plans them once, and creating an intent with its event takes one round trip instead of
 * the six of a Kysely transaction (decision 0181). A confirm's two writes are one statement
 * each too (PostgresAttempts, decision 0256).
 */
export class PostgresHotPaths extends PostgresAttempts implements HotPaths {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    super(pool);
    this.#pool = pool;
  }

  async createIntent(row: PaymentIntentsTable, draft: EventDraft, now: number): Promise<void> {
    const event = eventRow(draft, now);
    await this.#pool.query({
      name: 'hot_create_intent',
      text: CREATE_INTENT_WITH_EVENT,
      values: [...INTENT_COLUMNS.map((column) => row[column]), ...eventParams(event)],
    });
  }

  async findAccount(id: AccountId): Promise<AccountsTable | undefined> {
    return this.#one<AccountsTable>('hot_find_account', 'select * from accounts where id = $1', [id]);
  }

  async findAccountByClientKey(clientKey: string): Promise<AccountsTable | undefined> {
    return this.#one<AccountsTable>('hot_find_account_by_client_key', 'select * from accounts where client_key = $1', [
      clientKey,
    ]);
  }

  async findIntent(accountId: AccountId, id: string): Promise<PaymentIntentsTable | undefined> {
    return this.#one<PaymentIntentsTable>(
      'hot_find_intent',
      'select * from payment_intents where account_id = $1 and id = $2',
      [accountId, id],
    );
  }

  async findTransaction(accountId: AccountId, id: string): Promise<TransactionsTable | undefined> {
    return this.#one<TransactionsTable>(
      'hot_find_transaction',
      'select * from transactions where account_id = $1 and id = $2',
      [accountId, id],
    );
  }

  async #one<T>(name: string, text: string, values: unknown[]): Promise<T | undefined> {
    const result = await this.#pool.query({ name, text, values });
    // Answers of one turn go on together (decision 0188): each arrives in its own socket callback.
    await endOfTurn();
    return result.rows[0] as T | undefined;
  }
}
