import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { retrievePaymentIntent } from '../../../domain/intents.ts';
import type { Services } from '../../../services.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { IntentParams as Params, PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';

export function registerRetrievePaymentIntent(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof Params> }>(
    '/payment-intents/:id',
    { schema: { params: Params, response: { 200: PaymentIntentOut } } },
    async (request) =>
      toPaymentIntentOut(await retrievePaymentIntent(services.repos.intents, accountOf(request), request.params.id)),
  );
}
