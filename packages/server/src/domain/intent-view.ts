import type { PaymentIntent } from './intents.ts';

/** The merchant-visible payment intent: API answers and event payloads both use this. */
export interface PaymentIntentView {
  id: string;
  object: 'payment_intent';
  client_secret: string;
  amount: number;
  currency: string;
  status: string;
  mode: string;
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
  };
}
