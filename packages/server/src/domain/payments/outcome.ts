import { type Clock, DAY, MINUTE } from '../../clock.ts';
import { type AccountId, randomBase62 } from '../../ids.ts';
import type { ErrorCode } from '../errors.ts';
import { type IntentStore, intentEvent, type PaymentIntent } from '../intents.ts';
import { type Transaction, TX_STATUS, transactionEvent } from '../transactions.ts';
import type { FailureLimiter } from './failure-limiter.ts';
import { normalizeIssuer } from './issuer-details.ts';
import { mismatchOf, raisedForReview } from './matching.ts';
import type {
  AuthorizeOutcome,
  FinishedIntentStatus,
  IssuerInfo,
  PaymentStore,
  ProcessorRefs,
  WindowSlot,
} from './ports.ts';

/** What the shopper's widget learns about an attempt. */
export type PaymentOutcome =
  | { status: 'succeeded'; intent: PaymentIntent; transaction: Transaction }
  /** Approved for a manual capture: the shopper is done; the merchant captures later (decision 0241). */
  | { status: 'requires_capture'; intent: PaymentIntent; transaction: Transaction }
  | {
      status: 'failed';
      intent: PaymentIntent;
      transaction: Transaction;
      error: { code: ErrorCode; message: string };
    }
  | { status: 'requires_action'; intent: PaymentIntent; transaction: Transaction; challengeToken: string }
  | { status: 'processing'; intent: PaymentIntent; transaction: Transaction };

/** The bearer of a 3-D Secure page: whoever holds it may finish that one attempt's challenge. */
export const newChallengeToken = () => `chl_${randomBase62(32)}`;

export interface OutcomeDeps {
  store: PaymentStore;
  intents: IntentStore;
  transactions: { find(accountId: AccountId, id: string): Promise<Transaction | undefined> };
  clock: Clock;
  limiter: FailureLimiter;
  /** How long an authorization of a manual intent waits for its capture (OBOLUS_CAPTURE_WINDOW_HOURS). */
  captureWindowMs?: number;
}

/** Stripe cancels an uncaptured PaymentIntent after 7 days; the acquirers hold an authorization about as long. */
export const MAX_CAPTURE_WINDOW_MS = 7 * DAY;

/**
 * What the acquirer said about the card, tidied, and its ids of the attempt; a detail it
 * did not give keeps what we knew.
 */
export function withIssuer(tx: Transaction, issuer: IssuerInfo | null, refs?: ProcessorRefs): Transaction {
  const { brand, bank, country, funding } = normalizeIssuer(issuer);
  return {
    ...tx,
    cardBank: bank ?? tx.cardBank,
    cardCountry: country ?? tx.cardCountry,
    cardFunding: funding ?? tx.cardFunding,
    card: { ...tx.card, brand: brand ?? tx.card.brand },
    processorPaymentRef: refs?.payment ?? tx.processorPaymentRef,
    processorChargeRef: refs?.charge ?? tx.processorChargeRef,
  };
}

/** The outcome an attempt's stored state stands for (a finished attempt asked again). */
export function outcomeOf(intent: PaymentIntent, tx: Transaction): PaymentOutcome {
  if (tx.status === TX_STATUS.pending) {
    return tx.challengeToken
      ? { status: 'requires_action', intent, transaction: tx, challengeToken: tx.challengeToken }
      : { status: 'processing', intent, transaction: tx };
  }
  if (tx.status === TX_STATUS.declined || tx.status === TX_STATUS.failed) {
    const code = (tx.declineCode ?? 'card_declined') as ErrorCode;
    return { status: 'failed', intent, transaction: tx, error: { code, message: tx.declineMessage ?? 'Declined.' } };
  }
  if (tx.status === TX_STATUS.authorized) return { status: 'requires_capture', intent, transaction: tx };
  return { status: 'succeeded', intent, transaction: tx };
}

/** An outcome as recorded: `won` is false when another request had finished the attempt first. */
export type RecordedOutcome = PaymentOutcome & { won: boolean };

/**
 * Records what the processor answered: the attempt's final state and the intent's, with
 * their events, in one compare-and-set write. A challenge keeps the attempt pending.
 */
export async function recordOutcome(
  deps: OutcomeDeps,
  intent: PaymentIntent,
  pending: Transaction,
  outcome: AuthorizeOutcome,
  /** The token the acquirer was given in its return address, when there was one. */
  challengeToken = newChallengeToken(),
): Promise<RecordedOutcome> {
  const now = deps.clock.now();
  // Not this attempt's payment (decision 0193): left pending for the reconciler, which raises it for review.
  if (mismatchOf(pending, outcome)) return { status: 'processing', intent, transaction: pending, won: false };
  const base = {
    ...withIssuer(pending, outcome.issuer, 'refs' in outcome ? outcome.refs : undefined),
    ...followUpOf(pending, outcome, now),
    updatedAt: now,
  };
  switch (outcome.kind) {
    case 'challenge': {
      const tx = {
        ...base,
        challengeToken,
        processorChallengeRef: outcome.challengeRef,
        challengeRedirectUrl: outcome.redirectUrl ?? null,
      };
      const won = await deps.store.awaitChallenge(tx);
      return { status: 'requires_action', intent, transaction: tx, challengeToken: tx.challengeToken, won };
    }
    case 'unknown':
      return { status: 'processing', intent, transaction: pending, won: false };
    case 'approved': {
      // A manual intent's approval is only authorized, unless the acquirer says it captured it.
      const held = intent.captureMethod === 'manual' && outcome.funds !== 'captured';
      const tx: Transaction = {
        ...base,
        status: held ? TX_STATUS.authorized : TX_STATUS.settled,
        authorizationCode: outcome.authorizationCode,
        threeDS: outcome.threeDS,
        disputeAt: outcome.disputeAfterMs === undefined ? null : now + outcome.disputeAfterMs,
      };
      const window = Math.min(deps.captureWindowMs ?? MAX_CAPTURE_WINDOW_MS, MAX_CAPTURE_WINDOW_MS);
      const release = pending.clientIp ? deps.limiter.slotOf(pending.clientIp, pending.createdAt) : undefined;
      return held
        ? await finish(deps, intent, tx, 'requires_capture', 'payment_intent.amount_capturable_updated', {
            captureBefore: now + window,
            release,
          })
        : await finish(deps, intent, tx, 'succeeded', 'payment_intent.succeeded', { release });
    }
    case 'declined':
    case 'error': {
      const declined = outcome.kind === 'declined';
      const tx: Transaction = {
        ...base,
        status: declined ? TX_STATUS.declined : TX_STATUS.failed,
        declineCode: declined ? outcome.code : 'processing_error',
        declineMessage: outcome.message,
        threeDS: declined ? outcome.threeDS : base.threeDS,
      };
      // Already counted: the slot taken at confirm (decision 0200) stays taken. Counting here
      // again would count one failure twice, or once per racing challenge answer or sweeper.
      return finish(deps, intent, tx, 'failed', 'payment_intent.payment_failed');
    }
  }
}

/** A look at the acquirer again later (decision 0191): the payment was sent twice, or other approvals exist. */
export const FOLLOW_UP_CHECK_MS = MINUTE;

function followUpOf(pending: Transaction, outcome: AuthorizeOutcome, now: number): Partial<Transaction> {
  const duplicates = outcome.kind === 'approved' ? (outcome.duplicates ?? []) : [];
  if (duplicates.length > 0) {
    const found = duplicates.map((d) => ({ payment: d.payment, givenBack: null }));
    const raised = raisedForReview(pending, 'duplicate_payments', now);
    // Given back by the next reconciler pass.
    return {
      duplicatePayments: found,
      followUpAt: now,
      reviewRequestedAt: raised.reviewRequestedAt,
      reviewReason: raised.reviewReason,
    };
  }
  if (outcome.resent && (outcome.kind === 'approved' || outcome.kind === 'declined' || outcome.kind === 'error')) {
    return { followUpAt: now + FOLLOW_UP_CHECK_MS };
  }
  return {};
}

async function finish(
  deps: OutcomeDeps,
  known: PaymentIntent,
  tx: Transaction,
  intentStatus: FinishedIntentStatus,
  eventType: 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'payment_intent.amount_capturable_updated',
  change: { captureBefore?: number; release?: WindowSlot | undefined } = {},
): Promise<RecordedOutcome> {
  // Duplicates found as it was settled raise the attempt for review (decision 0191).
  const review = tx.reviewReason === 'duplicate_payments' && tx.followUpAt === tx.updatedAt;
  const intent = await deps.store.finishAttempt(
    known,
    tx,
    intentStatus,
    (after) => [
      transactionEvent('transaction.updated', tx),
      intentEvent(eventType, after),
      ...(review
        ? [{ ...transactionEvent('transaction.updated', tx), type: 'payment_attempt.requires_review' as const }]
        : []),
    ],
    {
      ...(change.captureBefore === undefined ? {} : { captureBefore: change.captureBefore }),
      // The card-testing slot taken at confirm is given back by the write that records the approval
      // only (decision 0200), so racing answers to one challenge give it back once.
      ...(change.release ? { release: change.release } : {}),
    },
  );
  if (intent) return { ...outcomeOf(intent, tx), won: true };
  // Another request finished this attempt first (two challenge completions racing): its answer stands.
  const [current, currentTx] = await Promise.all([
    deps.intents.find(tx.accountId, tx.paymentIntentId),
    deps.transactions.find(tx.accountId, tx.id),
  ]);
  if (!current || !currentTx) throw new Error(`attempt ${tx.id} vanished`);
  return { ...outcomeOf(current, currentTx), won: false };
}
