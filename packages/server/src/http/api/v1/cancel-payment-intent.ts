import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { CANCELLATION_REASONS } from '../../../domain/intents.ts';
import { cancelPaymentIntent } from '../../../domain/payments/cancel.ts';
import type { Services } from '../../../services.ts';
import { paymentDeps } from '../../../services.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { IntentParams, PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';

/** The body may be left out: a cancel without a reason, as Stripe's. */
export const CancelPaymentIntentIn = Type.Object(
  { cancellation_reason: Type.Optional(Type.Enum([...CANCELLATION_REASONS])) },
  { additionalProperties: false },
);
export type CancelPaymentIntentIn = Static<typeof CancelPaymentIntentIn>;

export function registerCancelPaymentIntent(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof IntentParams>; Body: CancelPaymentIntentIn }>(
    '/payment-intents/:id/cancel',
    {
      schema: { params: IntentParams, body: CancelPaymentIntentIn, response: { 200: PaymentIntentOut } },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const intent = await cancelPaymentIntent(
        paymentDeps(services),
        accountOf(request),
        request.params.id,
        request.body.cancellation_reason ?? null,
      );
      return toPaymentIntentOut(intent);
    },
  );
}
