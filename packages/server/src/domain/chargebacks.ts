import type { Clock } from '../clock.ts';
import type { AccountId } from '../ids.ts';
import type { Account } from './accounts.ts';
import { ApiError } from './errors.ts';
import type { EventDraft } from './events.ts';
import { noSuchTransaction, type TransactionReader, type TransactionWithRefunds } from './transaction-queries.ts';
import {
  DISPUTABLE_STATUSES,
  type Refund,
  type Transaction,
  TX_STATUS_TEXT,
  transactionEvent,
} from './transactions.ts';

export interface DueDispute {
  accountId: AccountId;
  transactionId: string;
}

export interface ChargebackStore {
  /**
   * Compare-and-set: chargeback false -> true and status -> 50 while the status is one of
   * DISPUTABLE_STATUSES, with the events, in one database transaction. Null when the
   * condition failed (someone recorded it first, or there is nothing to dispute).
   */
  record(
    dispute: DueDispute,
    now: number,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null>;
  /**
   * Compare-and-set: a chargeback the merchant won (the network gave the money back): status 50
   * -> what its refunds made it before (20, 41 or 40) and chargeback false, with the events.
   * Null when it was not charged back.
   */
  reinstate(
    dispute: DueDispute,
    now: number,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null>;
  /**
   * A chargeback that stands (the merchant lost the dispute): the transaction, still charged
   * back, only gets the events. Null when it is not charged back.
   */
  lost(
    dispute: DueDispute,
    now: number,
    events: (after: Transaction, refunds: Refund[]) => EventDraft[],
  ): Promise<TransactionWithRefunds | null>;
  /** Sandbox transactions whose simulated dispute time has come, oldest first, across accounts. */
  dueSandboxDisputesAcrossAccounts(now: number, limit: number): Promise<DueDispute[]>;
}

/**
 * Records a chargeback the card network has opened. This is what a live connector's dispute
 * notice calls, and what the sandbox simulates. Safe to call twice or from several
 * processes: only one call changes the transaction; the others answer null.
 */
export function recordChargeback(
  store: ChargebackStore,
  clock: Clock,
  dispute: DueDispute,
): Promise<TransactionWithRefunds | null> {
  return store.record(dispute, clock.now(), (after, refunds) => [
    transactionEvent('transaction.updated', after, refunds),
    disputeEvent('dispute.created', after, 'needs_response', clock.now()),
  ]);
}

/** A dispute the merchant won (decision 0196): the chargeback is undone, with a transaction.updated event. */
export function recordDisputeWon(
  store: ChargebackStore,
  clock: Clock,
  dispute: DueDispute,
): Promise<TransactionWithRefunds | null> {
  return store.reinstate(dispute, clock.now(), (after, refunds) => [
    transactionEvent('transaction.updated', after, refunds),
    disputeEvent('dispute.closed', after, 'won', clock.now()),
  ]);
}

/**
 * A dispute the merchant lost: the chargeback stands; dispute.closed with status lost. One the
 * acquirer reports lost without our having seen it opened is recorded first (created, then closed).
 */
export async function recordDisputeLost(
  store: ChargebackStore,
  clock: Clock,
  dispute: DueDispute,
): Promise<TransactionWithRefunds | null> {
  const closed = (after: Transaction) => disputeEvent('dispute.closed', after, 'lost', clock.now());
  const opened = await store.record(dispute, clock.now(), (after, refunds) => [
    transactionEvent('transaction.updated', after, refunds),
    disputeEvent('dispute.created', after, 'needs_response', clock.now()),
    closed(after),
  ]);
  return opened ?? store.lost(dispute, clock.now(), (after) => [closed(after)]);
}

export type DisputeStatus = 'needs_response' | 'won' | 'lost';

/**
 * dispute.created and dispute.closed (decision 0243). One dispute per transaction in our model,
 * named `dp_<transaction id>`; the transaction's `chargeback` flag stays the record of it.
 */
export function disputeEvent(
  type: 'dispute.created' | 'dispute.closed',
  tx: Transaction,
  status: DisputeStatus,
  now: number,
): EventDraft {
  return {
    type,
    accountId: tx.accountId,
    mode: tx.mode,
    objectType: 'dispute',
    objectId: `dp_${tx.id}`,
    object: {
      id: `dp_${tx.id}`,
      object: 'dispute',
      transaction: tx.id,
      payment_intent: tx.paymentIntentId,
      amount: tx.amount,
      currency: tx.currency,
      status,
      created: now / 1000,
    },
  };
}

/** The sandbox chargeback card's disputes whose time has come; answers how many were recorded. */
export async function recordDueSandboxDisputes(store: ChargebackStore, clock: Clock, limit: number): Promise<number> {
  let recorded = 0;
  for (const dispute of await store.dueSandboxDisputesAcrossAccounts(clock.now(), limit)) {
    if (await recordChargeback(store, clock, dispute)) recorded++;
  }
  return recorded;
}

/** A merchant's test of its chargeback handling, on one of its sandbox transactions. */
export async function simulateChargeback(
  stores: { transactions: TransactionReader; chargebacks: ChargebackStore },
  clock: Clock,
  account: Account,
  transactionId: string,
): Promise<TransactionWithRefunds> {
  const tx = await stores.transactions.find(account.id, transactionId);
  if (!tx) throw noSuchTransaction();
  if (tx.mode !== 'sandbox') {
    throw new ApiError(
      'sandbox_only',
      'Chargebacks can be simulated on sandbox transactions only; live ones come from the card network.',
    );
  }
  assertDisputable(tx);
  const done = await recordChargeback(stores.chargebacks, clock, { accountId: account.id, transactionId: tx.id });
  if (done) return done;
  // Lost a race: explain against the state now (in practice, another chargeback came first).
  const current = await stores.transactions.find(account.id, transactionId);
  if (current) assertDisputable(current);
  throw alreadyDisputed();
}

const alreadyDisputed = () =>
  new ApiError('transaction_already_disputed', 'This transaction already has a chargeback.');

function assertDisputable(tx: Transaction): void {
  if (tx.chargeback) throw alreadyDisputed();
  if (!DISPUTABLE_STATUSES.includes(tx.status)) {
    throw new ApiError(
      'transaction_not_disputable',
      `Only a transaction whose money was captured can be charged back; this one is ${TX_STATUS_TEXT[tx.status]}.`,
    );
  }
}
