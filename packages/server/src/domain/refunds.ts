import type { Clock } from '../clock.ts';
import { randomBase62 } from '../ids.ts';
import type { Account } from './accounts.ts';
import { ApiError, invalidParam } from './errors.ts';
import type { EventDraft } from './events.ts';
import { noSuchTransaction, type TransactionReader, type TransactionWithRefunds } from './transaction-queries.ts';
import {
  REFUNDABLE_STATUSES,
  type Refund,
  type Transaction,
  TX_STATUS,
  TX_STATUS_TEXT,
  transactionEvent,
} from './transactions.ts';

export const newRefundId = () => `re_${randomBase62(24)}`;

export interface RefundStore {
  /**
   * Compare-and-set: adds `refund.amount` to the transaction's refunded amount only while
   * the transaction is refundable and the sum stays within the amount paid, then inserts the
   * refund and the events, all in one database transaction. Null when the condition failed.
   */
  refund(
    refund: Refund,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null>;
}

export interface RefundIn {
  /** Minor units; the whole remainder when absent. */
  amount?: number | undefined;
}

export interface RefundOut extends TransactionWithRefunds {
  refund: Refund;
}

/** A race lost to another refund is retried against the new state this many times at most. */
const ATTEMPTS = 3;

export async function refundTransaction(
  stores: { transactions: TransactionReader; refunds: RefundStore },
  clock: Clock,
  account: Account,
  transactionId: string,
  input: RefundIn,
): Promise<RefundOut> {
  let tx = await stores.transactions.find(account.id, transactionId);
  for (let attempt = 0; attempt < ATTEMPTS && tx; attempt++) {
    // "Everything left" is read again on every attempt: a partial refund may have just landed.
    const amount = input.amount ?? tx.amount - tx.refundedAmount;
    assertRefundable(tx, amount);
    const refund: Refund = {
      id: newRefundId(),
      accountId: account.id,
      transactionId: tx.id,
      amount,
      currency: tx.currency,
      createdAt: clock.now(),
    };
    const done = await stores.refunds.refund(refund, (after, refunds) => [
      transactionEvent('transaction.updated', after, refunds),
    ]);
    if (done) return { refund, ...done };
    tx = await stores.transactions.find(account.id, transactionId);
  }
  if (!tx) throw noSuchTransaction();
  throw new ApiError(
    'transaction_not_refundable',
    'The transaction changed while this refund was being made. Fetch it and try again.',
  );
}

/** Says why a refund of `amount` from `tx` cannot be made, or nothing when it can. */
function assertRefundable(tx: Transaction, amount: number): void {
  if (tx.mode === 'live') {
    throw new ApiError(
      'live_refunds_unavailable',
      'Refunds of live transactions must go through the live connector that took the payment, and it offers none.',
    );
  }
  if (tx.chargeback || tx.status === TX_STATUS.chargeback) {
    throw new ApiError(
      'transaction_disputed',
      'This transaction has a chargeback: the card network returns the money, so it cannot be refunded as well.',
    );
  }
  if (tx.status === TX_STATUS.refunded) {
    throw new ApiError('transaction_already_refunded', 'This transaction has already been refunded in full.');
  }
  if (!REFUNDABLE_STATUSES.includes(tx.status)) {
    throw new ApiError(
      'transaction_not_refundable',
      `Only settled transactions can be refunded; this one is ${TX_STATUS_TEXT[tx.status]}.`,
    );
  }
  if (!Number.isSafeInteger(amount) || amount < 1) {
    throw invalidParam('amount', 'amount must be a positive integer number of cents.');
  }
  const remaining = tx.amount - tx.refundedAmount;
  if (amount > remaining) {
    throw new ApiError(
      'refund_amount_too_large',
      `amount must be at most ${remaining}: the cents of this payment not yet refunded.`,
      'amount',
    );
  }
}
