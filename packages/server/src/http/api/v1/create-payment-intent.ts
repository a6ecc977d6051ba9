import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { createPaymentIntent } from '../../../domain/intents.ts';
import type { Services } from '../../../services.ts';
import { EXAMPLES } from '../../openapi/examples.ts';
import { operation } from '../../openapi/operation.ts';
import { idempotentWrite } from '../../plugins/idempotency.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { Metadata, PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';
import { Amount, ModeEnum } from './schema-parts.ts';

/** Spec §2.1 and §8: every type, range and length is enforced here; the rest in the domain. */
export const CreatePaymentIntentIn = Type.Object(
  {
    amount: Amount(),
    currency: Type.String(),
    reference: Type.Optional(Type.String({ maxLength: 200 })),
    metadata: Type.Optional(Metadata),
    externalid: Type.Optional(Type.String({ maxLength: 200 })),
    descriptor: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    description: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    theme: Type.Optional(Type.Enum(['light', 'dark'])),
    mode: Type.Optional(ModeEnum),
    capture_method: Type.Optional(Type.Enum(['automatic', 'manual'])),
  },
  { additionalProperties: false },
);
export type CreatePaymentIntentIn = Static<typeof CreatePaymentIntentIn>;

/** POST /api/v1/payment-intents: its public contract, with the schemas below (docs/openapi.json). */
export const createPaymentIntentOperation = operation({
  operationId: 'createPaymentIntent',
  summary: 'Create a payment intent',
  tag: 'Payment intents',
  requestExample: {
    amount: 2000,
    currency: 'USD',
    mode: 'sandbox',
    reference: 'order_1234',
  },
  responseExample: EXAMPLES.intent,
});

export function registerCreatePaymentIntent(app: FastifyInstance, services: Services): void {
  app.post<{ Body: CreatePaymentIntentIn }>(
    '/payment-intents',
    { schema: { ...createPaymentIntentOperation, body: CreatePaymentIntentIn, response: { 200: PaymentIntentOut } } },
    async (request) => {
      const intent = await createPaymentIntent(
        services.repos.intents,
        services.clock,
        accountOf(request),
        request.body,
        services.processors,
        idempotentWrite(request),
      );
      return toPaymentIntentOut(intent);
    },
  );
}
