import type { EventDraft } from '../events.ts';
import type { PaymentIntent } from '../intents.ts';
import type { Transaction } from '../transactions.ts';

/** What the payment use cases need from the store. Every write is one database transaction with its events. */
export interface PaymentStore {
  /**
   * Compare-and-set: requires_payment | failed -> processing, only while the intent is not
   * expired and under the failed-attempt cap, inserting `tx` as its pending attempt.
   * Answers the intent after the change, or null when another request got there first.
   */
  beginAttempt(
    tx: Transaction,
    rules: { now: number; maxFailedAttempts: number },
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<PaymentIntent | null>;

  /**
   * Compare-and-set: the pending attempt `tx` gets its final state, and its intent moves
   * processing -> `intentStatus`. Null when the attempt was already finished.
   */
  finishAttempt(
    tx: Transaction,
    intentStatus: 'succeeded' | 'failed',
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<PaymentIntent | null>;

  /** Keeps the attempt pending while the shopper authenticates (3-D Secure). */
  awaitChallenge(tx: Transaction): Promise<boolean>;

  /**
   * Compare-and-set to expired for an intent past its window that is not being paid
   * (requires_payment, failed, or processing with an abandoned challenge).
   */
  expire(
    intent: PaymentIntent,
    now: number,
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<PaymentIntent | null>;

  /** Intents past their window still in a non-final state, by (expiresAt, id), after `after` when given. */
  dueForExpiry(now: number, limit: number, after?: PaymentIntent): Promise<PaymentIntent[]>;

  /**
   * The reconciler's work list, across accounts: attempts of `processors` still pending
   * (a challenge open, or an outcome unknown), started before `startedBefore`, in
   * (createdAt, id) order after the page cursor `after`.
   */
  pendingAttempts(query: {
    processors: readonly string[];
    startedBefore: number;
    after: { createdAt: number; id: string } | null;
    limit: number;
  }): Promise<Transaction[]>;
}
