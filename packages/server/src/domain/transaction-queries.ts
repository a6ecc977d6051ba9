import type { AccountId, TransactionId } from '../ids.ts';
import type { Account } from './accounts.ts';
import { ApiError } from './errors.ts';
import type { Mode, Page } from './intents.ts';
import type { Refund, Transaction, TxStatus } from './transactions.ts';

/** Filters of the transaction list; every one narrows, none widens. Times are ms, inclusive. */
export interface TransactionFilter {
  status?: TxStatus;
  mode?: Mode;
  /** Minor units, inclusive. */
  amountMin?: number;
  amountMax?: number;
  paymentIntentId?: string;
  productId?: string;
  externalid?: string;
  /** The reference of the transaction's payment intent. */
  reference?: string;
  createdFrom?: number;
  createdTo?: number;
}

export interface TransactionReader {
  find(accountId: AccountId, id: string): Promise<Transaction | undefined>;
  /** Newest first; `after` is a transaction of the same account the page starts after. */
  list(accountId: AccountId, filter: TransactionFilter, limit: number, after?: Transaction): Promise<Page<Transaction>>;
}

export interface RefundReader {
  /** The refunds of these transactions of the account, oldest first. */
  forTransactions(accountId: AccountId, transactionIds: readonly TransactionId[]): Promise<Refund[]>;
}

export interface TransactionWithRefunds {
  transaction: Transaction;
  refunds: Refund[];
}

/**
 * The one message of a transaction that is not the caller's to see. It never echoes the id,
 * so a foreign id answers byte for byte what a missing one does (spec §7.1).
 */
export const NO_SUCH_TRANSACTION = 'No such transaction.';

export const noSuchTransaction = () => new ApiError('resource_missing', NO_SUCH_TRANSACTION, 'id');

/** Attaches refunds, asking the store only about transactions that have any. */
export async function withRefunds(
  refunds: RefundReader,
  accountId: AccountId,
  transactions: readonly Transaction[],
): Promise<TransactionWithRefunds[]> {
  // A live refund that failed gave its amount back but is still listed: live ones are always asked about.
  const refunded = transactions.filter((tx) => tx.refundedAmount > 0 || tx.mode === 'live').map((tx) => tx.id);
  const all = refunded.length > 0 ? await refunds.forTransactions(accountId, refunded) : [];
  return transactions.map((transaction) => ({
    transaction,
    refunds: all.filter((refund) => refund.transactionId === transaction.id),
  }));
}

export async function retrieveTransaction(
  stores: { transactions: TransactionReader; refunds: RefundReader },
  account: Account,
  id: string,
): Promise<TransactionWithRefunds> {
  // Scoped by account: another account's transaction is not found, by the same query and path.
  const transaction = await stores.transactions.find(account.id, id);
  if (!transaction) throw noSuchTransaction();
  const [found] = await withRefunds(stores.refunds, account.id, [transaction]);
  return found ?? { transaction, refunds: [] };
}

export async function listTransactions(
  stores: { transactions: TransactionReader; refunds: RefundReader },
  account: Account,
  query: { filter: TransactionFilter; limit: number; startingAfter?: string | undefined },
): Promise<Page<TransactionWithRefunds>> {
  let after: Transaction | undefined;
  if (query.startingAfter !== undefined) {
    after = await stores.transactions.find(account.id, query.startingAfter);
    if (!after) {
      throw new ApiError('resource_missing', 'starting_after names no transaction of this account.', 'starting_after');
    }
  }
  const page = await stores.transactions.list(account.id, query.filter, query.limit, after);
  return { data: await withRefunds(stores.refunds, account.id, page.data), hasMore: page.hasMore };
}
