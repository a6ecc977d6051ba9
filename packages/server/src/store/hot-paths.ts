import type { EventDraft } from '../domain/events.ts';
import type { AccountId } from '../ids.ts';
import type { AccountsTable, PaymentIntentsTable, TransactionsTable } from './schema.ts';

/**
 * The hottest queries of the service, run as prepared statements instead of queries Kysely
 * builds and compiles on every call (decisions 0120 and 0181): an account on every
 * authenticated request that misses the cache, the account of a widget's client key, creating
 * and retrieving an intent, retrieving a transaction. Each engine has its own (store/sqlite-hot-paths.ts, store/postgres-hot-paths.ts);
 * the repositories fall back to Kysely without one.
 */
export interface HotPaths {
  /** The intent and its creation event, atomically; resolves after the commit. */
  createIntent(row: PaymentIntentsTable, draft: EventDraft, now: number): Promise<void>;
  findAccount(id: AccountId): Maybe<AccountsTable>;
  /** The account of a widget's client key: on every confirm. */
  findAccountByClientKey(clientKey: string): Maybe<AccountsTable>;
  findIntent(accountId: AccountId, id: string): Maybe<PaymentIntentsTable>;
  findTransaction(accountId: AccountId, id: string): Maybe<TransactionsTable>;
}

type Maybe<T> = T | undefined | Promise<T | undefined>;

export const INTENT_COLUMNS = [
  'id',
  'account_id',
  'amount',
  'currency',
  'status',
  'mode',
  'client_secret',
  'reference',
  'externalid',
  'descriptor',
  'description',
  'theme',
  'metadata',
  'product_id',
  'created_at',
  'updated_at',
  'expires_at',
  'last_transaction_id',
  'failed_attempts',
  'idempotency_key',
  'capture_method',
  'capture_before',
  'canceled_at',
  'cancellation_reason',
] as const satisfies ReadonlyArray<keyof PaymentIntentsTable>;
