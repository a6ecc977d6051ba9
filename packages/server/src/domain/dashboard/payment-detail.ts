import type { AccountId } from '../../ids.ts';
import type { Account } from '../accounts.ts';
import { ApiError } from '../errors.ts';
import type { EventFeed } from '../event-queries.ts';
import type { StoredEvent } from '../events.ts';
import type { IntentStore, PaymentIntent } from '../intents.ts';
import type { RefundReader, TransactionReader } from '../transaction-queries.ts';
import { CAPTURED_STATUSES, type Refund, type Transaction } from '../transactions.ts';
import type { Attempt } from '../webhooks/deliveries.ts';
import { type PaymentStatus, paymentStatus } from './payment-list.ts';

export interface PaymentDetailStores {
  transactions: TransactionReader & { forIntent(accountId: AccountId, intentId: string): Promise<Transaction[]> };
  refunds: RefundReader;
  intents: Pick<IntentStore, 'find'>;
  eventFeed: Pick<EventFeed, 'list'>;
  webhookAttempts: { forEvents(accountId: AccountId, eventIds: readonly string[]): Promise<Attempt[]> };
}

/** A payment as its dashboard page shows it: the intent and everything its attempts did. */
export interface PaymentDetail {
  intent: PaymentIntent;
  status: PaymentStatus;
  /** Every attempt, oldest first; none for an intent nobody has tried to pay yet. */
  attempts: Transaction[];
  /** The attempt that captured the money, if one did: refunds and chargebacks are about it. */
  paid: Transaction | undefined;
  /** Refunds of the paid attempt, oldest first. */
  refunds: Refund[];
  /** The intent's and its attempts' events, oldest first. */
  events: StoredEvent[];
  webhookAttempts: Attempt[];
}

const EVENTS_PER_OBJECT = 100;

/** Says the same for a missing and a foreign id (spec §7.1). */
export const noSuchPayment = () => new ApiError('resource_missing', 'No such payment.', 'id');

/**
 * The payment intent a dashboard link names: a payment intent's id, or one of its
 * attempts' (transaction) ids, of this account; ids of both are 24 hex digits.
 */
export async function paymentOf(
  stores: Pick<PaymentDetailStores, 'intents' | 'transactions'>,
  account: Account,
  id: string,
): Promise<{ intentId: string; transactionId?: string }> {
  if (await stores.intents.find(account.id, id)) return { intentId: id };
  const tx = await stores.transactions.find(account.id, id);
  if (!tx) throw noSuchPayment();
  return { intentId: tx.paymentIntentId, transactionId: tx.id };
}

/** One payment intent with its attempts, refunds, events and webhook deliveries. */
export async function paymentDetail(
  stores: PaymentDetailStores,
  account: Account,
  intentId: string,
): Promise<PaymentDetail> {
  const intent = await stores.intents.find(account.id, intentId);
  if (!intent) throw noSuchPayment();
  const attempts = await stores.transactions.forIntent(account.id, intent.id);
  const last = attempts.find((a) => a.id === intent.lastTransactionId) ?? attempts[attempts.length - 1];
  const paid = attempts.find((a) => CAPTURED_STATUSES.includes(a.status));
  const refunds = paid ? await stores.refunds.forTransactions(account.id, [paid.id]) : [];
  const objects = [intent.id, ...attempts.map((a) => a.id)];
  const pages = await Promise.all(
    objects.map((objectId) => stores.eventFeed.list(account.id, EVENTS_PER_OBJECT, { objectId })),
  );
  const events = pages
    .flatMap((page) => page.data)
    .sort((a, b) => a.createdAt - b.createdAt || a.objectSeq - b.objectSeq || a.id.localeCompare(b.id));
  const webhookAttempts = await stores.webhookAttempts.forEvents(
    account.id,
    events.map((e) => e.id),
  );
  return { intent, status: paymentStatus(intent, last), attempts, paid, refunds, events, webhookAttempts };
}
