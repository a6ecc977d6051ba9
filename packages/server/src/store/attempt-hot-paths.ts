import type { EventDraft } from '../domain/events.ts';
import type { PaymentIntent } from '../domain/intents.ts';
import type { AttemptRules, BeginOutcome, FinishedIntentStatus, WindowSlot } from '../domain/payments/ports.ts';
import type { Transaction } from '../domain/transactions.ts';
import { intentRow } from './intent-rows.ts';
import type { PaymentIntentsTable, TransactionsTable } from './schema.ts';

/**
 * A confirm's two writes as each engine runs them fastest (decision 0255): beginning an attempt
 * and finishing it, each one unit of prepared statements (SQLite: through the writer thread, in
 * its group commits) or one statement (PostgreSQL). Both are compare-and-sets on the intent as
 * read (its updatedAt), so the intent after is known without reading it back, and its events
 * are written in the same unit. PaymentsRepository takes the general path without them.
 */
/** What finishing an attempt does to its intent: its status (requires_capture: until `captureBefore`), the slot given back. */
export interface FinishChange {
  intentStatus: FinishedIntentStatus;
  captureBefore?: number;
  release?: WindowSlot;
}

export interface AttemptHotPaths {
  /** As PaymentStore.beginAttempt; `events` are the drafts of the intent after (startedIntent). */
  beginAttempt?(
    intent: PaymentIntent,
    tx: Transaction,
    rules: AttemptRules,
    events: EventDraft[],
  ): Promise<BeginOutcome>;
  /**
   * As PaymentStore.finishAttempt for an intent still as `intent` was known: true when written,
   * false when the attempt was already finished, `intent_changed` (nothing written) when the
   * intent is not as known: the caller takes the general path.
   */
  finishAttempt?(
    intent: PaymentIntent,
    tx: Transaction,
    change: FinishChange,
    events: EventDraft[],
  ): Promise<boolean | 'intent_changed'>;
}

/**
 * What may change on an intent waiting for a payment (a merchant's update, an attempt, a
 * decline), besides its `updated_at`: beginning an attempt compares every one with the intent as
 * read, so that its events and its processor call carry the intent it changed, even when two
 * changes fall in one millisecond (or a test's clock stands still).
 */
export const AS_READ = [
  'status',
  'last_transaction_id',
  'failed_attempts',
  'description',
  'descriptor',
  'reference',
  'externalid',
  'metadata',
  'updated_at',
] as const satisfies ReadonlyArray<keyof PaymentIntentsTable>;

/** The values of AS_READ for `intent`, in their order. */
export const asRead = (intent: PaymentIntent): unknown[] => {
  const row = intentRow(intent);
  return AS_READ.map((column) => row[column]);
};

/** The intent after beginning the attempt `tx` on it. */
export function startedIntent(intent: PaymentIntent, tx: Transaction, now: number): PaymentIntent {
  return { ...intent, status: 'processing', lastTransactionId: tx.id, updatedAt: now };
}

/** The intent after its attempt `tx` finished. */
export function finishedIntent(
  intent: PaymentIntent,
  tx: Transaction,
  status: FinishedIntentStatus,
  captureBefore: number | undefined,
): PaymentIntent {
  return {
    ...intent,
    status,
    updatedAt: tx.updatedAt,
    captureBefore: captureBefore ?? null,
    failedAttempts: intent.failedAttempts + (status === 'failed' ? 1 : 0),
  };
}

/** The columns a finished attempt writes, the same on both engines. */
export const FINISHED_COLUMNS = [
  'status',
  'card_country',
  'card_bank',
  'card_brand',
  'decline_code',
  'decline_message',
  'three_ds',
  'authorization_code',
  'dispute_at',
  'challenge_token',
  'card_funding',
  'processor_payment_ref',
  'processor_charge_ref',
  'duplicate_payments',
  'follow_up_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof TransactionsTable>;
