import type { AccountId } from '../../ids.ts';
import type { EventDraft } from '../events.ts';
import type { CancellationReason, Mode, PaymentIntent } from '../intent-model.ts';
import type { Transaction } from '../transactions.ts';

/** One use of a card ciphertext's `jti`: a replay of it is refused (decision 0183). */
export interface CiphertextUse {
  jti: string;
  accountId: AccountId;
  paymentIntentId: string;
  usedAt: number;
  expiresAt: number;
}

/**
 * A card-testing slot of one client network's window (decision 0200): taken by the write that
 * begins an attempt, given back by the write that records its success (decision 0255).
 */
export interface WindowSlot {
  scope: string;
  subject: string;
  windowStart: number;
  windowMs: number;
  /** Slots the window holds: the attempt is refused when they are all taken. */
  limit: number;
}

/** What beginning an attempt came to: begun (the intent after), or refused, having changed nothing. */
export type BeginOutcome =
  | { begun: PaymentIntent }
  /** lost: the intent is not as it was read (another attempt, an update, expiry); rate_limited: no slot left. */
  | { refused: 'lost' | 'rate_limited' };

/** What the payment use cases need from the store. Every write is one database transaction with its events. */
/** What beginning an attempt is checked against: its time, the failed-attempt cap, the card's ciphertext, the card-testing slot. */
export interface AttemptRules {
  now: number;
  maxFailedAttempts: number;
  ciphertext: CiphertextUse;
  slot: WindowSlot;
}

/** Where a finished attempt leaves its intent. */
export type FinishedIntentStatus = 'succeeded' | 'failed' | 'requires_capture';

export interface PaymentStore {
  /**
   * Compare-and-set on `intent` as read (its updatedAt): requires_payment | failed ->
   * processing, only while the intent is not expired, under the failed-attempt cap and still
   * of the attempt's amount, inserting `tx` as its pending attempt, taking the card-testing
   * `slot` and recording the use of its card's ciphertext. Refused, changing nothing, when the
   * intent changed meanwhile or the slot's window is full; throws CiphertextReplayed,
   * changing nothing, when the ciphertext was used before.
   */
  beginAttempt(
    intent: PaymentIntent,
    tx: Transaction,
    rules: AttemptRules,
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<BeginOutcome>;

  /**
   * Compare-and-set: the pending attempt `tx` gets its final state, and its intent (`intent`,
   * as last known) moves processing -> `intentStatus` (requires_capture: until
   * `captureBefore`); `release` gives back the attempt's card-testing slot in the same write.
   * Null when the attempt was already finished.
   */
  finishAttempt(
    intent: PaymentIntent,
    tx: Transaction,
    intentStatus: FinishedIntentStatus,
    events: (intent: PaymentIntent) => EventDraft[],
    change?: { captureBefore?: number; release?: WindowSlot },
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

  /**
   * Compare-and-set: the intent, still in the status and with the last attempt `intent` was
   * read with, becomes canceled (decision 0240), with the events. `voided`: a requires_capture
   * intent's authorized attempt, written as voided in the same transaction. Null when the intent
   * changed meanwhile.
   */
  cancel(
    intent: PaymentIntent,
    change: { now: number; reason: CancellationReason | null; voided?: Transaction },
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<PaymentIntent | null>;

  /**
   * Compare-and-set: a requires_capture intent, still with its authorized attempt, becomes
   * succeeded, and the attempt `captured` settled for what was captured, with the events. Null
   * when either changed meanwhile (a cancel or another capture won).
   */
  capture(
    intent: PaymentIntent,
    captured: Transaction,
    events: (intent: PaymentIntent) => EventDraft[],
  ): Promise<PaymentIntent | null>;

  /** requires_capture intents whose authorization is due to be voided, by (captureBefore, id), after `after`. */
  dueForVoidAcrossAccounts(now: number, limit: number, after?: PaymentIntent): Promise<PaymentIntent[]>;

  /** Intents past their window still in a non-final state, by (expiresAt, id), after `after` when given. */
  dueForExpiryAcrossAccounts(now: number, limit: number, after?: PaymentIntent): Promise<PaymentIntent[]>;

  /**
   * Compare-and-set: marks a pending attempt of unknown outcome as needing an operator's
   * review, once (review_requested_at was null), with the events. False when already
   * marked or no longer pending.
   */
  flagForReview(tx: Transaction, now: number, events: EventDraft[]): Promise<boolean>;

  /**
   * Compare-and-set on the attempt as `before` read it (its updatedAt): writes what a follow-up
   * at the acquirer changed (`reversal`, `duplicatePayments`, `followUpAt`, the review and its
   * reason, the acquirer's refs), with the events. False when the attempt changed meanwhile.
   */
  recordFollowUp(before: Transaction, after: Transaction, events: EventDraft[]): Promise<boolean>;

  /** The reconciler's follow-ups, across accounts: finished attempts of `processors` due by `now`, in (followUpAt, id) order. */
  dueFollowUpsAcrossAccounts(query: {
    processors: readonly string[];
    now: number;
    after: { followUpAt: number; id: string } | null;
    limit: number;
  }): Promise<Transaction[]>;

  /** Attempts still pending and flagged for review, across accounts (the metric). */
  countAwaitingReviewAcrossAccounts(): Promise<number>;

  /**
   * The attempt of `processor` an acquirer's notice names, by our attempt id (its metadata)
   * or by the acquirer's payment id. Across accounts: the acquirer account belongs to the
   * operator, and the ids come from a notice whose signature was checked.
   */
  attemptOfProcessorAcrossAccounts(
    processor: string,
    by: { attemptId: string } | { paymentRef: string },
  ): Promise<Transaction | undefined>;

  /**
   * The reconciler's work list, across accounts: attempts of `processors` still pending
   * (a challenge open, or an outcome unknown), started before `startedBefore`, in
   * (createdAt, id) order after the page cursor `after`.
   */
  pendingAttemptsAcrossAccounts(query: {
    processors: readonly string[];
    startedBefore: number;
    after: { createdAt: number; id: string } | null;
    limit: number;
  }): Promise<Transaction[]>;
}

/**
 * The Processor port: how a payment attempt reaches an acquirer. Connectors implement it
 * side by side under src/connectors/ (the sandbox simulator for test cards, one folder per
 * real acquirer); the domain never imports a connector. A processor never touches the
 * store: the payments use cases record what it answers. Every live connector passes the
 * shared contract suite (test/support/connector-contract.ts).
 */

/** The decrypted card, held in memory only for the length of one authorization. */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  name: string;
}

/**
 * What the acquirer tells us about the card (goes onto the transaction record). Every
 * field is optional: an approval never depends on a cosmetic detail (issuer-details.ts).
 */
export interface IssuerInfo {
  /** Scheme name for paymenttypetext: Visa, Mastercard, American Express, … */
  brand?: string | null;
  bank?: string | null;
  /** ISO 3166-1 alpha-2 */
  country?: string | null;
  /** credit, debit, prepaid, unknown */
  funding?: string | null;
}

/** The acquirer's own ids of an attempt, shown on the transaction record for support and reconciliation. */
export interface ProcessorRefs {
  /** e.g. Stripe's PaymentIntent id */
  payment: string;
  /** e.g. Stripe's charge id, once there is one */
  charge?: string | null;
}

export interface AuthorizeRequest {
  /** The transaction id of this attempt: processors use it as their idempotency key and reference. */
  attemptId: string;
  /** The intent the attempt pays, for the acquirer's metadata. */
  intentId: string;
  amount: number;
  currency: 'USD';
  mode: Mode;
  card: CardDetails;
  descriptor: string | null;
  /** Where the issuer's 3-D Secure page sends the shopper back (live connectors with redirects). */
  returnUrl: string;
  /**
   * automatic (the default): captured at once. manual: authorized only, captured or voided
   * later (Stripe capture_method=manual, Checkout.com capture:false); see `voidAuthorization`.
   */
  capture?: 'automatic' | 'manual';
}

/**
 * How far an approved payment has gone at the acquirer: an authorization can still be voided
 * (nothing reaches the shopper's statement); captured money is given back by a refund.
 */
export type Funds = 'authorized' | 'captured';

/** The acquirer's own amount (minor units) and currency of a payment: settled only when they match (decision 0193). */
export interface AcquirerAmount {
  amount: number;
  currency: string;
}

/** What every outcome may also say. */
export interface OutcomeNotes {
  /**
   * The connector sent the payment a second time (its first answer was lost and a lookup found
   * nothing): the acquirer may hold a second payment for the attempt, so the domain looks
   * again later (decision 0191).
   */
  resent?: boolean;
  /** What the acquirer answered in its own words (status, codes; never card data): logs, verify-connector. */
  acquirer?: string;
}

export type DeclineCode =
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'authentication_failed'
  | 'card_not_test';

export type ThreeDSResult = 'not_required' | 'frictionless' | 'challenge_passed' | 'challenge_failed';

export type AuthorizeOutcome = OutcomeNotes &
  (
    | {
        kind: 'approved';
        issuer: IssuerInfo | null;
        authorizationCode: string | null;
        threeDS: ThreeDSResult;
        refs?: ProcessorRefs;
        disputeAfterMs?: number;
        /**
         * Absent: as asked (the sandbox, and connectors that do not say): captured, or for a
         * capture_method=manual intent only authorized.
         */
        funds?: Funds;
        money?: AcquirerAmount;
        /** Other approved payments the acquirer holds for the same attempt: given back by the domain. */
        duplicates?: ProcessorRefs[];
      }
    | {
        kind: 'declined';
        issuer: IssuerInfo | null;
        code: DeclineCode;
        message: string;
        threeDS: ThreeDSResult;
        refs?: ProcessorRefs;
        money?: AcquirerAmount;
      }
    /**
     * The issuer wants the shopper to authenticate. `redirectUrl`: the issuer's page to frame
     * (a live acquirer); without it, the sandbox's own ACS page is shown. Then completeChallenge.
     */
    | { kind: 'challenge'; issuer: IssuerInfo | null; challengeRef: string; redirectUrl?: string; refs?: ProcessorRefs }
    /** The processor failed to process (a processing error): nothing was charged. */
    | { kind: 'error'; issuer: IssuerInfo | null; message: string }
    /** We do not know whether money moved (timeout, lost connection): reconcile later. */
    | { kind: 'unknown'; issuer: IssuerInfo | null; message: string; refs?: ProcessorRefs }
  );

/** What the shopper did on the challenge page: the sandbox ACS reads it; a real issuer's answer comes from the acquirer. */
export interface ChallengeAnswer {
  code?: string;
  cancel?: boolean;
}

/** An attempt as the reconciler and refunds name it to the processor. */
export interface AttemptRef {
  attemptId: string;
  /** The acquirer's payment id when we learnt it, else null (then it is searched by attempt id). */
  paymentRef: string | null;
}

/** An attempt as stored: the card only as first 6, last 4 and length. */
export interface InterruptedAttempt {
  id: string;
  card: { bin: string; last4: string; length: number };
}

export interface RefundRequest {
  /** Our refund id: the idempotency key of the refund at the acquirer. */
  refundId: string;
  attempt: AttemptRef;
  amount: number;
}

export type RefundOutcome =
  | { kind: 'succeeded' | 'pending'; ref: string }
  | { kind: 'failed'; ref: string | null; message: string }
  /** The answer was lost (or the payment cannot be refunded yet): sent again with the same key until it is known. */
  | { kind: 'unknown'; message: string };

/** A payment the acquirer holds for one of our attempts (found by our reference). */
export interface HeldPayment {
  payment: string;
  approved: boolean;
  /** null when not approved. */
  funds: Funds | null;
}

/**
 * Giving a whole payment back: a void while it is only authorized, a refund once captured.
 * `failed`: refused as the payment stands (it moved on, e.g. captured meanwhile): asked again later.
 */
export type ReversalOutcome =
  | { kind: 'succeeded' | 'pending'; method: 'void' | 'refund'; ref: string }
  /** The payment holds no money now (declined, cancelled, expired): nothing to give back. */
  | { kind: 'nothing_taken'; status: string }
  | { kind: 'failed' | 'unknown'; message: string };

/** What became of a capture at the acquirer. `failed`: refused as the payment stands; `unknown`: no answer. */
export type CaptureOutcome = { kind: 'succeeded'; ref: string } | { kind: 'failed' | 'unknown'; message: string };

/** What a live connector will put on the shopper's statement for an intent's descriptor, or why it cannot. */
export type DescriptorCheck = { ok: true; sent: string } | { ok: false; message: string };

/** What an acquirer's signed notice (a webhook) reports, read by its connector. */
export type ProcessorNotice =
  | { kind: 'payment'; eventId: string; attempt: AttemptRef; outcome: AuthorizeOutcome }
  /** opened: the network took the money back (a chargeback); won: it came back; lost: the chargeback stands. */
  | { kind: 'dispute'; eventId: string; paymentRef: string; stage: 'opened' | 'won' | 'lost' }
  | {
      kind: 'refund';
      eventId: string;
      paymentRef: string;
      /** Our refund id, when the notice carries it (Stripe: the refund's metadata). */
      refundId: string | null;
      /** The acquirer's id of the refund (Stripe re_…, Checkout.com's action id): as its refund call answered. */
      ref: string;
      /** Minor units, when the notice says. */
      amount?: number;
      status: 'succeeded' | 'pending' | 'failed';
    }
  /** A type we do not act on: acknowledged and ignored. */
  | { kind: 'ignored'; eventId: string };

/** A notice whose signature is wrong or too old: answered 400, nothing changes. */
export class NoticeRejected extends Error {}

export interface Processor {
  readonly name: string;
  /** Origins the widget may frame for this processor's 3-D Secure pages (the widget's CSP frame-src). */
  readonly frameSources?: readonly string[];
  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome>;
  /** Finishes an attempt that answered `challenge`, once the shopper is back from the challenge page. */
  completeChallenge(challengeRef: string, answer: ChallengeAnswer): Promise<AuthorizeOutcome>;
  /**
   * What became of an attempt whose outcome was `unknown` (the reconciler asks; decision
   * 0041). Null while the processor cannot say yet: not decided, or not reachable.
   * Processors that never answer `unknown` (the sandbox) leave it out.
   */
  lookup?(attempt: AttemptRef): Promise<AuthorizeOutcome | null>;
  /**
   * What the processor answered, or would have answered, an attempt whose answer was lost
   * with a stopped process. Only a simulator can say without asking anyone (the sandbox);
   * real acquirers are asked through `lookup` instead.
   */
  recoverInterrupted?(attempt: InterruptedAttempt): AuthorizeOutcome | null;
  /** Gives money back at the acquirer. Processors that move no money (the sandbox) leave it out. */
  refund?(request: RefundRequest): Promise<RefundOutcome>;
  /**
   * Gives back a whole payment we must not keep (a late approval, a duplicate): voided while
   * only authorized, refunded once captured, as the acquirer says it stands now. Idempotent
   * per payment.
   */
  reverse?(payment: { attemptId: string; paymentRef: string }): Promise<ReversalOutcome>;
  /**
   * Captures an authorization (a merchant's capture of a manual intent, decision 0241): `amount`
   * at most the amount authorized; the rest is released. `key`: the idempotency key.
   * Processors that move no money (the sandbox) leave it out.
   */
  capture?(request: { paymentRef: string; amount: number; key: string }): Promise<CaptureOutcome>;
  /** Voids an authorization not captured yet (a merchant's cancel of a manual capture). `key`: the idempotency key. */
  voidAuthorization?(request: { paymentRef: string; key: string }): Promise<ReversalOutcome>;
  /** Every payment the acquirer holds for an attempt (a lookup by our reference); null when it cannot say now. */
  paymentsOf?(attempt: AttemptRef): Promise<HeldPayment[] | null>;
  /** What an intent's descriptor becomes on a statement through this connector, checked when the intent is created. */
  statementDescriptor?(descriptor: string): DescriptorCheck;
  /** Our attempt id that the acquirer's payment carries (its metadata); null when it cannot say. */
  attemptIdOf?(paymentRef: string): Promise<string | null>;
  /** The request header that carries a notice's signature (Stripe-Signature when not said). */
  readonly noticeSignatureHeader?: string;
  /** Checks a notice's signature on its raw body and reads it; throws NoticeRejected when forged or stale. */
  readNotice?(rawBody: Buffer, signature: string): ProcessorNotice;
}

/** Which processor takes a payment of a given mode. Live has one only if the operator configured one. */
export interface ProcessorRegistry {
  forMode(mode: Mode): Processor | null;
  byName(name: string): Processor | null;
}
