import type { CancellationReason, CaptureMethod, IntentStatus, Mode, PaymentIntent } from './intent-model.ts';

/** The merchant-visible payment intent: API answers and event payloads both use this. */
export interface PaymentIntentView {
  id: string;
  object: 'payment_intent';
  client_secret: string;
  amount: number;
  currency: 'USD';
  status: IntentStatus;
  mode: Mode;
  created: number;
  expires_at: number;
  reference: string | null;
  externalid: string | null;
  descriptor: string | null;
  description: string | null;
  theme: string | null;
  metadata: Record<string, string>;
  product: string | null;
  last_transaction: string | null;
  capture_method: CaptureMethod;
  /** Unix seconds: a requires_capture intent's authorization is voided then if not captured. */
  capture_before: number | null;
  canceled_at: number | null;
  cancellation_reason: CancellationReason | null;
}

export function paymentIntentView(intent: PaymentIntent): PaymentIntentView {
  return {
    id: intent.id,
    object: 'payment_intent',
    client_secret: intent.clientSecret,
    amount: intent.amount,
    currency: intent.currency,
    status: intent.status,
    mode: intent.mode,
    created: Math.floor(intent.createdAt / 1000),
    expires_at: Math.floor(intent.expiresAt / 1000),
    reference: intent.reference,
    externalid: intent.externalid,
    descriptor: intent.descriptor,
    description: intent.description,
    theme: intent.theme,
    metadata: intent.metadata,
    product: intent.productId,
    last_transaction: intent.lastTransactionId,
    capture_method: intent.captureMethod,
    capture_before: seconds(intent.captureBefore),
    canceled_at: seconds(intent.canceledAt),
    cancellation_reason: intent.cancellationReason,
  };
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));
