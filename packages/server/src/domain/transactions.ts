import type { AccountId, IntentId, TransactionId } from '../ids.ts';
import { toMajorUnits } from '../money.ts';
import type { EventDraft } from './events.ts';
import type { Mode } from './intent-model.ts';

/** Transaction status codes (docs/transactions.md). 20 Settled is the contract's; the rest are ours. */
export const TX_STATUS = {
  pending: 10,
  /** Approved for a manual capture, not captured yet (decision 0241). */
  authorized: 11,
  settled: 20,
  declined: 30,
  failed: 31,
  /** An authorization released without any capture: canceled by the merchant, or not captured in time. */
  voided: 32,
  refunded: 40,
  partiallyRefunded: 41,
  chargeback: 50,
} as const;
export type TxStatus = (typeof TX_STATUS)[keyof typeof TX_STATUS];

export const TX_STATUS_TEXT: Record<TxStatus, string> = {
  10: 'Pending',
  11: 'Authorized',
  20: 'Settled',
  30: 'Declined',
  31: 'Failed',
  32: 'Voided',
  40: 'Refunded',
  41: 'Partially refunded',
  50: 'Chargeback',
};

/** Statuses in which money was captured: amountpaid, usdpaid and usdfee count only for these. */
export const CAPTURED_STATUSES: readonly TxStatus[] = [20, 40, 41, 50];
/** Statuses a refund may start from: money captured and some of it not yet given back. */
export const REFUNDABLE_STATUSES: readonly TxStatus[] = [20, 41];
/**
 * Statuses on which a card network's dispute is recorded: money was captured and no
 * chargeback exists yet. Refunded ones included: the network, not we, decides (decision 0012).
 */
export const DISPUTABLE_STATUSES: readonly TxStatus[] = [20, 40, 41];

/** One payment attempt. The card is kept as BIN, last 4 and length only; the CVC never. */
export interface Transaction {
  id: TransactionId;
  uuid: string;
  accountId: AccountId;
  paymentIntentId: IntentId;
  mode: Mode;
  status: TxStatus;
  amount: number;
  currency: 'USD';
  feeAmount: number;
  feeBps: number;
  feeFixedMinor: number;
  refundedAmount: number;
  /** A partial capture: the amount authorized, while `amount` is the amount captured; null otherwise. */
  amountAuthorized: number | null;
  card: { bin: string; last4: string; length: number; brand: string; expMonth: number; expYear: number };
  cardholder: string;
  cardCountry: string | null;
  cardBank: string | null;
  externalid: string | null;
  productId: string | null;
  chargeback: boolean;
  declineCode: string | null;
  declineMessage: string | null;
  threeDS: string | null;
  authorizationCode: string | null;
  processor: string;
  challengeToken: string | null;
  processorChallengeRef: string | null;
  /** Sandbox chargeback card: when the simulated dispute arrives. */
  disputeAt: number | null;
  clientIp: string | null;
  /** The acquirer's ids of this attempt (Stripe: PaymentIntent, charge); null in the sandbox. */
  processorPaymentRef: string | null;
  processorChargeRef: string | null;
  /** credit, debit, prepaid, unknown: as the acquirer says. */
  cardFunding: string | null;
  /** A live 3-D Secure challenge: the issuer page the challenge frame shows. */
  challengeRedirectUrl: string | null;
  /** When an attempt still of unknown outcome was flagged for an operator's review. */
  reviewRequestedAt: number | null;
  /** An approval the shopper was told had failed, given back: `refunded <ref>`, `void pending <ref>`, … */
  reversal: string | null;
  /** Why the attempt was raised for review; null with reviewRequestedAt set: its outcome was unknown. */
  reviewReason: ReviewReason | null;
  /** Other payments the acquirer made for this attempt (a resend after a lost answer), and how each was given back. */
  duplicatePayments: DuplicatePayment[];
  /** When the reconciler looks at this attempt at the acquirer again (something to give back, or to check); null: never. */
  followUpAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Why an attempt needs an operator (decision 0193). */
export type ReviewReason = 'amount_mismatch' | 'payment_mismatch' | 'duplicate_payments';

export interface DuplicatePayment {
  /** The acquirer's id of the other payment. */
  payment: string;
  /** How it was given back (`voided <ref>`, `refund pending <ref>`, …); null: not yet. */
  givenBack: string | null;
}

/** A new attempt knows nothing yet of the acquirer's ids, a review or a reversal. */
export const NOT_YET_PROCESSED: Readonly<
  Pick<
    Transaction,
    | 'processorPaymentRef'
    | 'processorChargeRef'
    | 'cardFunding'
    | 'challengeRedirectUrl'
    | 'reviewRequestedAt'
    | 'reversal'
    | 'reviewReason'
    | 'duplicatePayments'
    | 'followUpAt'
    | 'amountAuthorized'
  >
> = {
  processorPaymentRef: null,
  processorChargeRef: null,
  cardFunding: null,
  challengeRedirectUrl: null,
  reviewRequestedAt: null,
  reversal: null,
  reviewReason: null,
  duplicatePayments: [],
  followUpAt: null,
  amountAuthorized: null,
};

/** Money given back to the shopper from one transaction; amounts in minor units. */
export interface Refund {
  /** re_… */
  id: string;
  accountId: AccountId;
  transactionId: TransactionId;
  amount: number;
  currency: 'USD';
  createdAt: number;
  /** Sandbox refunds succeed at once; a live one is pending until the acquirer says. A failed one gave nothing back. */
  status: RefundStatus;
  /** The acquirer's id of the refund (Stripe: re_…); null in the sandbox. */
  processorRef: string | null;
  paymentIntentId: IntentId | null;
  reason: RefundReason | null;
  metadata: Record<string, string>;
}

export type RefundStatus = 'succeeded' | 'pending' | 'failed';
export const REFUND_STATUSES: readonly RefundStatus[] = ['pending', 'succeeded', 'failed'];
/** Stripe's reasons (decision 0243). */
export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

export interface RefundView {
  id: string;
  object: 'refund';
  amount: number;
  currency: 'USD';
  created: number;
  transaction: string;
  status: RefundStatus;
  processor_refund_id: string | null;
  payment_intent: string | null;
  reason: RefundReason | null;
  metadata: Record<string, string>;
}

export function refundView(refund: Refund): RefundView {
  return {
    id: refund.id,
    object: 'refund',
    amount: refund.amount,
    currency: refund.currency,
    created: refund.createdAt / 1000,
    transaction: refund.transactionId,
    status: refund.status,
    processor_refund_id: refund.processorRef,
    payment_intent: refund.paymentIntentId,
    reason: refund.reason,
    metadata: refund.metadata,
  };
}

/** refund.created and refund.updated (decision 0243): the refund as GET /api/v1/refunds/{id} shows it. */
export function refundEvent(type: 'refund.created' | 'refund.updated', refund: Refund, mode: Mode): EventDraft {
  return {
    type,
    accountId: refund.accountId,
    mode,
    objectType: 'refund',
    objectId: refund.id,
    object: refundView(refund),
  };
}

export function maskedCard(card: Transaction['card']): string {
  return card.bin + '*'.repeat(Math.max(card.length - 10, 0)) + card.last4;
}

/**
 * The transaction record of spec §2.2, field names and JSON types exactly as listed,
 * followed by the platform's own fields (which clients treat as informational).
 */
export interface TransactionRecord {
  id: string;
  uuid: string;
  created: number;
  status: number;
  statustext: string;
  amountpaid: number;
  currencypaid: string;
  usdpaid: number;
  usdfee: number;
  card: string;
  cardholder: string;
  cardcountry: string;
  cardbank: string;
  paymenttypetext: string;
  externalid: string;
  product: string;
  chargeback: boolean;
  object: 'transaction';
  payment_intent: string;
  mode: Mode;
  amount: number;
  currency: 'USD';
  amount_refunded: number;
  fee: { amount: number; percent_bps: number; fixed: number; currency: 'USD' };
  card_exp_month: number;
  card_exp_year: number;
  decline_code: string | null;
  decline_message: string | null;
  three_d_secure: string | null;
  authorization_code: string | null;
  card_funding: string | null;
  /** Which processor took the attempt (sandbox, stripe) and its ids there. */
  processor: string;
  processor_payment_id: string | null;
  processor_charge_id: string | null;
  requires_review: boolean;
  /** Why, when an operator must look: amount_mismatch, payment_mismatch, duplicate_payments; null for an unknown outcome. */
  review_reason: ReviewReason | null;
  late_approval_reversal: string | null;
  /** Other payments the acquirer made for this attempt, each given back (decision 0191). */
  duplicate_payments: { processor_payment_id: string; given_back: string | null }[];
  updated: number;
  /** Oldest first. */
  refunds: RefundView[];
}

/** `refunds` are the transaction's own, oldest first; a transaction never refunded has none. */
export function transactionRecord(tx: Transaction, refunds: readonly Refund[] = []): TransactionRecord {
  const captured = CAPTURED_STATUSES.includes(tx.status);
  // Only USD exists in v1, so the settled USD amount is the amount paid.
  const paidMinor = captured ? tx.amount : 0;
  const feeMinor = captured ? tx.feeAmount : 0;
  return {
    id: tx.id,
    uuid: tx.uuid,
    created: tx.createdAt / 1000,
    status: tx.status,
    statustext: TX_STATUS_TEXT[tx.status],
    amountpaid: toMajorUnits(paidMinor),
    currencypaid: tx.currency,
    usdpaid: toMajorUnits(paidMinor),
    usdfee: toMajorUnits(feeMinor),
    card: maskedCard(tx.card),
    cardholder: tx.cardholder,
    cardcountry: tx.cardCountry ?? '',
    cardbank: tx.cardBank ?? '',
    paymenttypetext: tx.card.brand,
    externalid: tx.externalid ?? '',
    product: tx.productId ?? '',
    chargeback: tx.chargeback,
    object: 'transaction',
    payment_intent: tx.paymentIntentId,
    mode: tx.mode,
    amount: tx.amount,
    currency: tx.currency,
    amount_refunded: tx.refundedAmount,
    fee: { amount: feeMinor, percent_bps: tx.feeBps, fixed: tx.feeFixedMinor, currency: 'USD' },
    card_exp_month: tx.card.expMonth,
    card_exp_year: tx.card.expYear,
    decline_code: tx.declineCode,
    decline_message: tx.declineMessage,
    three_d_secure: tx.threeDS,
    authorization_code: tx.authorizationCode,
    card_funding: tx.cardFunding,
    processor: tx.processor,
    processor_payment_id: tx.processorPaymentRef,
    processor_charge_id: tx.processorChargeRef,
    requires_review: tx.reviewRequestedAt !== null && (tx.status === TX_STATUS.pending || tx.reviewReason !== null),
    review_reason: tx.reviewRequestedAt !== null ? tx.reviewReason : null,
    late_approval_reversal: tx.reversal,
    duplicate_payments: tx.duplicatePayments.map((d) => ({ processor_payment_id: d.payment, given_back: d.givenBack })),
    updated: tx.updatedAt / 1000,
    refunds: refunds.map(refundView),
  };
}

export function transactionEvent(
  type: 'transaction.created' | 'transaction.updated',
  tx: Transaction,
  refunds: readonly Refund[] = [],
): EventDraft {
  return {
    type,
    accountId: tx.accountId,
    mode: tx.mode,
    objectType: 'transaction',
    objectId: tx.id,
    object: transactionRecord(tx, refunds),
  };
}
