import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { capturePaymentIntent } from '../../../domain/payments/capture.ts';
import type { Services } from '../../../services.ts';
import { paymentDeps } from '../../../services.ts';
import { EXAMPLES } from '../../openapi/examples.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { IntentParams, PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';
import { MAX_AMOUNT } from './schema-parts.ts';

/** The body may be left out: the whole authorization is captured, as Stripe's. */
export const CapturePaymentIntentIn = Type.Object(
  {
    amount_to_capture: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_AMOUNT,
        description: 'At most the amount authorized; the rest is released.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CapturePaymentIntentIn = Static<typeof CapturePaymentIntentIn>;

/** POST /api/v1/payment-intents/{id}/capture: its public contract, with the schemas below (docs/openapi.json). */
export const capturePaymentIntentOperation = operation({
  operationId: 'capturePaymentIntent',
  summary: 'Capture an authorized payment intent (requires_capture), fully or in part',
  tag: 'Payment intents',
  // The capture at a live acquirer: refused (402) or unanswered (502).
  errors: [402, 502],
  requestExample: {
    amount_to_capture: 1500,
  },
  responseExample: EXAMPLES.capturedIntent,
});

export function registerCapturePaymentIntent(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof IntentParams>; Body: CapturePaymentIntentIn }>(
    '/payment-intents/:id/capture',
    {
      schema: {
        ...capturePaymentIntentOperation,
        params: IntentParams,
        body: CapturePaymentIntentIn,
        response: { 200: PaymentIntentOut },
      },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const intent = await capturePaymentIntent(
        paymentDeps(services),
        accountOf(request),
        request.params.id,
        request.body.amount_to_capture,
      );
      return toPaymentIntentOut(intent);
    },
  );
}
