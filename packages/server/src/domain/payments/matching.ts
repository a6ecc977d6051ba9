import { type ReviewReason, type Transaction, transactionEvent } from '../transactions.ts';
import type { AuthorizeOutcome, PaymentStore } from './ports.ts';

/**
 * Settle only what matches (decision 0193): what an acquirer says (a notice, a lookup) is about
 * this attempt only when its amount and currency are the attempt's and, once we know the
 * attempt's payment id, it names that payment. Pure: the caller refuses and reports.
 */
export type Mismatch =
  | { kind: 'amount'; amount: number; currency: string }
  /** Another payment for the same attempt: if approved, a duplicate to give back. */
  | { kind: 'payment'; payment: string };

export function mismatchOf(attempt: Transaction, outcome: AuthorizeOutcome): Mismatch | null {
  if (outcome.kind !== 'approved' && outcome.kind !== 'declined') return null;
  const money = outcome.money;
  // After a partial capture the acquirer still names the payment by the amount it authorized.
  const authorized = attempt.amountAuthorized ?? attempt.amount;
  if (money && (money.amount !== authorized || money.currency.toUpperCase() !== attempt.currency)) {
    return { kind: 'amount', amount: money.amount, currency: money.currency };
  }
  const payment = outcome.refs?.payment;
  if (payment && attempt.processorPaymentRef && payment !== attempt.processorPaymentRef) {
    return { kind: 'payment', payment };
  }
  return null;
}

/** The fields a mismatch leaves for the reconciler and the operator: nothing of the payment itself changes. */
export function withMismatch(attempt: Transaction, outcome: AuthorizeOutcome, mismatch: Mismatch, now: number) {
  const duplicate = mismatch.kind === 'payment' && outcome.kind === 'approved';
  const reason: ReviewReason = duplicate
    ? 'duplicate_payments'
    : mismatch.kind === 'amount'
      ? 'amount_mismatch'
      : 'payment_mismatch';
  const known = attempt.duplicatePayments.some((d) => mismatch.kind === 'payment' && d.payment === mismatch.payment);
  return raisedForReview(
    {
      ...attempt,
      duplicatePayments:
        duplicate && !known
          ? [...attempt.duplicatePayments, { payment: (mismatch as { payment: string }).payment, givenBack: null }]
          : attempt.duplicatePayments,
      // A duplicate is given back by the next reconciler pass.
      followUpAt: duplicate && !known ? now : attempt.followUpAt,
      updatedAt: now,
    },
    reason,
    now,
  );
}

/** Raised for review once, with the first reason found; an attempt flagged as unknown before gets its reason now. */
export function raisedForReview(tx: Transaction, reason: ReviewReason, now: number): Transaction {
  return { ...tx, reviewRequestedAt: tx.reviewRequestedAt ?? now, reviewReason: tx.reviewReason ?? reason };
}

/** Writes what a follow-up changed, with transaction.updated and, when newly raised, payment_attempt.requires_review. */
export async function recordFollowUp(store: PaymentStore, before: Transaction, after: Transaction): Promise<boolean> {
  const events = [transactionEvent('transaction.updated', after)];
  if (before.reviewReason === null && after.reviewReason !== null) {
    events.push({ ...transactionEvent('transaction.updated', after), type: 'payment_attempt.requires_review' });
  }
  return store.recordFollowUp(before, after, events);
}
