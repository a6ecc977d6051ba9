import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { retrievePaymentIntent } from '../../../domain/intents.ts';
import type { Services } from '../../../services.ts';
import { EXAMPLES } from '../../openapi/examples.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { IntentParams as Params, PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';

/** GET /api/v1/payment-intents/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const retrievePaymentIntentOperation = operation({
  operationId: 'retrievePaymentIntent',
  summary: 'Retrieve a payment intent',
  tag: 'Payment intents',
  responseExample: EXAMPLES.intent,
});

export function registerRetrievePaymentIntent(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof Params> }>(
    '/payment-intents/:id',
    { schema: { ...retrievePaymentIntentOperation, params: Params, response: { 200: PaymentIntentOut } } },
    async (request) =>
      toPaymentIntentOut(await retrievePaymentIntent(services.repos.intents, accountOf(request), request.params.id)),
  );
}
