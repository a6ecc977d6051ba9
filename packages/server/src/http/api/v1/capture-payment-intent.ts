import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { capturePaymentIntent } from '../../../domain/payments/capture.ts';
import type { Services } from '../../../services.ts';
import { paymentDeps } from '../../../services.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { IntentParams, PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';

/** The body may be left out: the whole authorization is captured, as Stripe's. */
export const CapturePaymentIntentIn = Type.Object(
  {
    amount_to_capture: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 99_999_999,
        description: 'At most the amount authorized; the rest is released.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CapturePaymentIntentIn = Static<typeof CapturePaymentIntentIn>;

export function registerCapturePaymentIntent(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof IntentParams>; Body: CapturePaymentIntentIn }>(
    '/payment-intents/:id/capture',
    {
      schema: { params: IntentParams, body: CapturePaymentIntentIn, response: { 200: PaymentIntentOut } },
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
