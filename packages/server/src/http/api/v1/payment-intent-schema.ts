import { type Static, Type } from 'typebox';
import { paymentIntentView } from '../../../domain/intent-view.ts';
import { CANCELLATION_REASONS, INTENT_STATUSES, type PaymentIntent } from '../../../domain/intents.ts';
import { CurrencyOut, ModeEnum, nullable } from './schema-parts.ts';

export const IntentParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** A flat object whose every value is a string (additionalProperties, so no key can slip past a pattern). */
export const Metadata = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string' },
});

/** The merchant-visible payment intent: create, retrieve and list all answer with this. */
export const PaymentIntentOut = Type.Object({
  id: Type.String(),
  object: Type.Literal('payment_intent'),
  client_secret: Type.String(),
  amount: Type.Integer(),
  currency: CurrencyOut,
  status: Type.Enum([...INTENT_STATUSES]),
  mode: ModeEnum,
  created: Type.Integer({ description: 'Unix seconds' }),
  expires_at: Type.Integer({ description: 'Unix seconds: the client_secret is refused from then on' }),
  reference: nullable(Type.String()),
  externalid: nullable(Type.String()),
  descriptor: nullable(Type.String()),
  description: nullable(Type.String()),
  theme: nullable(Type.String()),
  metadata: Metadata,
  product: nullable(Type.String()),
  last_transaction: nullable(Type.String()),
  capture_method: Type.Enum(['automatic', 'manual']),
  capture_before: nullable(
    Type.Integer({ description: 'Unix seconds: an authorization not captured by then is voided (requires_capture)' }),
  ),
  canceled_at: nullable(Type.Integer({ description: 'Unix seconds' })),
  cancellation_reason: nullable(Type.Enum([...CANCELLATION_REASONS, 'automatic'])),
});
export type PaymentIntentOut = Static<typeof PaymentIntentOut>;

export const toPaymentIntentOut = (intent: PaymentIntent): PaymentIntentOut => paymentIntentView(intent);
