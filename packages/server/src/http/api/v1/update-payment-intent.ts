import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { updatePaymentIntent } from '../../../domain/intent-changes.ts';
import type { Services } from '../../../services.ts';
import { EXAMPLES } from '../../openapi/examples.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { CreatePaymentIntentIn } from './create-payment-intent.ts';
import { IntentParams, PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';

const field = CreatePaymentIntentIn.properties;
const clearable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

/**
 * The creation rules and limits of each field (decision 0242); null clears an optional text.
 * `mode` and `currency` are taken only to be refused by name: they never change.
 */
export const UpdatePaymentIntentIn = Type.Object(
  {
    amount: Type.Optional(field.amount),
    description: clearable(Type.String({ minLength: 5, maxLength: 100 })),
    descriptor: clearable(Type.String({ minLength: 5, maxLength: 100 })),
    reference: clearable(Type.String({ maxLength: 200 })),
    externalid: clearable(Type.String({ maxLength: 200 })),
    metadata: field.metadata,
    mode: Type.Optional(Type.Unknown({ description: 'Refused: fixed at creation.' })),
    currency: Type.Optional(Type.Unknown({ description: 'Refused: fixed at creation.' })),
  },
  { additionalProperties: false },
);
export type UpdatePaymentIntentIn = Static<typeof UpdatePaymentIntentIn>;

/** POST /api/v1/payment-intents/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const updatePaymentIntentOperation = operation({
  operationId: 'updatePaymentIntent',
  summary: 'Update a payment intent before it is paid (requires_payment or failed)',
  tag: 'Payment intents',
  requestExample: {
    amount: 2500,
    metadata: {
      order_id: '1042',
    },
  },
  responseExample: EXAMPLES.updatedIntent,
});

export function registerUpdatePaymentIntent(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof IntentParams>; Body: UpdatePaymentIntentIn }>(
    '/payment-intents/:id',
    {
      schema: {
        ...updatePaymentIntentOperation,
        params: IntentParams,
        body: UpdatePaymentIntentIn,
        response: { 200: PaymentIntentOut },
      },
    },
    async (request) => {
      const intent = await updatePaymentIntent(
        services.repos.intents,
        services.clock,
        accountOf(request),
        request.params.id,
        request.body,
        services.processors,
      );
      return toPaymentIntentOut(intent);
    },
  );
}
