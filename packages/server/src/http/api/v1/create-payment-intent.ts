import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { createPaymentIntent } from '../../../domain/intents.ts';
import type { Services } from '../../../services.ts';
import { idempotentWrite } from '../../plugins/idempotency.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { Metadata, PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';

/** Spec §2.1 and §8: every type, range and length is enforced here; the rest in the domain. */
export const CreatePaymentIntentIn = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: 99_999_999 }),
    currency: Type.String(),
    reference: Type.Optional(Type.String({ maxLength: 200 })),
    metadata: Type.Optional(Metadata),
    externalid: Type.Optional(Type.String({ maxLength: 200 })),
    descriptor: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    description: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    theme: Type.Optional(Type.Enum(['light', 'dark'])),
    mode: Type.Optional(Type.Enum(['live', 'sandbox'])),
    capture_method: Type.Optional(Type.Enum(['automatic', 'manual'])),
  },
  { additionalProperties: false },
);
export type CreatePaymentIntentIn = Static<typeof CreatePaymentIntentIn>;

export function registerCreatePaymentIntent(app: FastifyInstance, services: Services): void {
  app.post<{ Body: CreatePaymentIntentIn }>(
    '/payment-intents',
    { schema: { body: CreatePaymentIntentIn, response: { 200: PaymentIntentOut } } },
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
