import type { Account } from '../accounts.ts';
import type { EventFeed } from '../event-queries.ts';
import type { StoredEvent } from '../events.ts';
import type { IntentStore, PaymentIntent } from '../intents.ts';
import {
  noSuchTransaction,
  type RefundReader,
  type TransactionReader,
  type TransactionWithRefunds,
  withRefunds,
} from '../transaction-queries.ts';
import type { Transaction } from '../transactions.ts';
import type { Attempt } from '../webhooks/deliveries.ts';

export interface PaymentDetailStores {
  transactions: TransactionReader & { forIntent(accountId: string, intentId: string): Promise<Transaction[]> };
  refunds: RefundReader;
  intents: Pick<IntentStore, 'find'>;
  eventFeed: Pick<EventFeed, 'list'>;
  webhookAttempts: { forEvents(accountId: string, eventIds: readonly string[]): Promise<Attempt[]> };
}

export interface PaymentDetail extends TransactionWithRefunds {
  intent: PaymentIntent | undefined;
  /** Every attempt of the intent, oldest first (this transaction among them). */
  attempts: Transaction[];
  /** The intent's and its transactions' events, oldest first. */
  events: StoredEvent[];
  webhookAttempts: Attempt[];
}

const EVENTS_PER_OBJECT = 100;

/** One payment as the dashboard shows it: the transaction, its intent, every attempt, events and webhooks. */
export async function paymentDetail(stores: PaymentDetailStores, account: Account, id: string): Promise<PaymentDetail> {
  const transaction = await stores.transactions.find(account.id, id);
  if (!transaction) throw noSuchTransaction();
  const [withRefund] = await withRefunds(stores.refunds, account.id, [transaction]);
  const intent = await stores.intents.find(account.id, transaction.paymentIntentId);
  const attempts = await stores.transactions.forIntent(account.id, transaction.paymentIntentId);
  const objects = [transaction.paymentIntentId, ...attempts.map((a) => a.id)];
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
  return { transaction, refunds: withRefund?.refunds ?? [], intent, attempts, events, webhookAttempts };
}
