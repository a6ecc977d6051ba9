import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { CANCELLATION_REASONS } from '../../../domain/intents.ts';
import { cancelPaymentIntent } from '../../../domain/payments/cancel.ts';
import type { Services } from '../../../services.ts';
import { paymentDeps } from '../../../services.ts';
import { EXAMPLES } from '../../openapi/examples.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { IntentParams, PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';

/** The body may be left out: a cancel without a reason, as Stripe's. */
export const CancelPaymentIntentIn = Type.Object(
  { cancellation_reason: Type.Optional(Type.Enum([...CANCELLATION_REASONS])) },
  { additionalProperties: false },
);
export type CancelPaymentIntentIn = Static<typeof CancelPaymentIntentIn>;

/** POST /api/v1/payment-intents/{id}/cancel: its public contract, with the schemas below (docs/openapi.json). */
export const cancelPaymentIntentOperation = operation({
  operationId: 'cancelPaymentIntent',
  summary: 'Cancel a payment intent (requires_payment, failed or requires_capture)',
  tag: 'Payment intents',
  // The void of an authorization at a live acquirer: refused (402) or unanswered (502).
  errors: [402, 502],
  requestExample: {
    cancellation_reason: 'requested_by_customer',
  },
  responseExample: EXAMPLES.canceledIntent,
});

export function registerCancelPaymentIntent(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof IntentParams>; Body: CancelPaymentIntentIn }>(
    '/payment-intents/:id/cancel',
    {
      schema: {
        ...cancelPaymentIntentOperation,
        params: IntentParams,
        body: CancelPaymentIntentIn,
        response: { 200: PaymentIntentOut },
      },
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
