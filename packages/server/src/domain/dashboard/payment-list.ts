import type { AccountId, IntentId, TransactionId } from '../../ids.ts';
import type { Account } from '../accounts.ts';
import { ApiError } from '../errors.ts';
import type { IntentStore, Mode, Page, PaymentIntent } from '../intents.ts';
import { type Transaction, TX_STATUS } from '../transactions.ts';

/**
 * A payment as the dashboard lists it: one payment intent, whatever its attempts did
 * (docs/decisions/0140). Its status says where the intent stands and, once paid, what
 * became of the money: the statuses a merchant filters by.
 */
export const PAYMENT_STATUSES = [
  'requires_payment',
  'pending',
  'requires_capture',
  'failed',
  'canceled',
  'expired',
  'settled',
  'partially_refunded',
  'refunded',
  'chargeback',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_STATUS_TEXT: Record<PaymentStatus, string> = {
  requires_payment: 'Requires payment',
  pending: 'Pending',
  requires_capture: 'Authorized, to capture',
  failed: 'Failed',
  canceled: 'Canceled',
  expired: 'Expired',
  settled: 'Settled',
  partially_refunded: 'Partially refunded',
  refunded: 'Refunded',
  chargeback: 'Chargeback',
};

/** The statuses that depend on the paid attempt: the transaction status each one is. */
export const PAID_STATUS_OF: Partial<Record<PaymentStatus, number>> = {
  settled: TX_STATUS.settled,
  partially_refunded: TX_STATUS.partiallyRefunded,
  refunded: TX_STATUS.refunded,
  chargeback: TX_STATUS.chargeback,
};

/** The intent statuses the others are. */
export const INTENT_STATUS_OF: Partial<Record<PaymentStatus, PaymentIntent['status']>> = {
  requires_payment: 'requires_payment',
  pending: 'processing',
  requires_capture: 'requires_capture',
  failed: 'failed',
  canceled: 'canceled',
  expired: 'expired',
};

/** An intent's payment status; `last` is its newest attempt (the paid one once it succeeded). */
export function paymentStatus(intent: PaymentIntent, last: Transaction | undefined): PaymentStatus {
  if (intent.status !== 'succeeded') {
    const found = PAYMENT_STATUSES.find((s) => INTENT_STATUS_OF[s] === intent.status);
    return found ?? 'requires_payment';
  }
  const paid = PAYMENT_STATUSES.find((s) => PAID_STATUS_OF[s] === last?.status);
  return paid ?? 'settled';
}

/** Every field narrows; times in ms and amounts in minor units, inclusive. */
export interface PaymentFilter {
  mode: Mode;
  status?: PaymentStatus;
  amountMin?: number;
  amountMax?: number;
  createdFrom?: number;
  createdTo?: number;
  reference?: string;
  externalid?: string;
  /** Intents with an attempt on a card ending in these 4 digits. */
  last4?: string;
}

export interface PaymentListStore {
  /** Intents of the account, newest first, strictly after `after` in (created_at, id) order. */
  listIntents(
    accountId: AccountId,
    filter: PaymentFilter,
    limit: number,
    after?: { createdAt: number; id: string },
  ): Promise<Page<PaymentIntent>>;
  /** These transactions of the account, by id. */
  findMany(accountId: AccountId, ids: readonly TransactionId[]): Promise<Transaction[]>;
  /** How many attempts each of these intents has. */
  attemptCounts(accountId: AccountId, intentIds: readonly IntentId[]): Promise<Map<string, number>>;
}

export interface PaymentRow {
  intent: PaymentIntent;
  status: PaymentStatus;
  /** The newest attempt, if any: its card and outcome. */
  last: Transaction | undefined;
  attempts: number;
}

/** The dashboard's Payments list: a page of intents with their newest attempt, by keyset. */
export async function listPayments(
  stores: { payments: PaymentListStore; intents: Pick<IntentStore, 'find'> },
  account: Account,
  query: { filter: PaymentFilter; limit: number; startingAfter?: string | undefined },
): Promise<Page<PaymentRow>> {
  let after: PaymentIntent | undefined;
  if (query.startingAfter !== undefined) {
    after = await stores.intents.find(account.id, query.startingAfter);
    if (!after) throw new ApiError('resource_missing', 'after names no payment of this account.', 'after');
  }
  const page = await stores.payments.listIntents(account.id, query.filter, query.limit, after);
  const lastIds = page.data.map((i) => i.lastTransactionId).filter((id): id is TransactionId => id !== null);
  const [lasts, counts] = await Promise.all([
    lastIds.length ? stores.payments.findMany(account.id, lastIds) : Promise.resolve([]),
    page.data.length
      ? stores.payments.attemptCounts(
          account.id,
          page.data.map((i) => i.id),
        )
      : Promise.resolve(new Map<string, number>()),
  ]);
  const byId = new Map(lasts.map((tx) => [tx.id as string, tx]));
  return {
    hasMore: page.hasMore,
    data: page.data.map((intent) => {
      const last = intent.lastTransactionId ? byId.get(intent.lastTransactionId) : undefined;
      return { intent, last, status: paymentStatus(intent, last), attempts: counts.get(intent.id) ?? 0 };
    }),
  };
}
