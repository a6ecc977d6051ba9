import type { AccountId, IntentId, TransactionId } from '../ids.ts';

/**
 * What a payment intent is: its statuses, modes and fields. Apart from the use cases in
 * intents.ts so that events, transactions, the view and the payment ports can name these
 * types without importing the use cases (no import cycles, decision 0282).
 */
export const INTENT_STATUSES = [
  'requires_payment',
  'processing',
  'requires_capture',
  'succeeded',
  'failed',
  'canceled',
  'expired',
] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];
export type CaptureMethod = 'automatic' | 'manual';
/** Stripe's reasons a merchant gives, and `automatic`: an authorization not captured in time (decision 0240). */
export const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number] | 'automatic';
export type Mode = 'live' | 'sandbox';
export type Theme = 'light' | 'dark';

export interface PaymentIntent {
  id: IntentId;
  accountId: AccountId;
  amount: number;
  currency: 'USD';
  status: IntentStatus;
  mode: Mode;
  clientSecret: string;
  reference: string | null;
  externalid: string | null;
  descriptor: string | null;
  description: string | null;
  theme: Theme | null;
  metadata: Record<string, string>;
  productId: string | null;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
  /** The newest payment attempt, if any. */
  lastTransactionId: TransactionId | null;
  /** Declined or failed attempts so far: card-testing protection caps them. */
  failedAttempts: number;
  captureMethod: CaptureMethod;
  /** requires_capture: when the authorization is voided if not captured (decision 0241). */
  captureBefore: number | null;
  canceledAt: number | null;
  cancellationReason: CancellationReason | null;
}
