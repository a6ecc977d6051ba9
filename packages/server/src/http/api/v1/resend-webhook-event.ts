import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { resendEvent } from '../../../domain/webhooks/delivery-queries.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { DeliveryOut, toDeliveryOut } from './webhook-delivery-schema.ts';

const Params = Type.Object({ id: Type.String({ maxLength: 64 }), event_id: Type.String({ maxLength: 64 }) });

/** POST /api/v1/webhook-endpoints/{id}/resend/{event_id}: its public contract, with the schemas below (docs/openapi.json). */
export const resendWebhookEventOperation = operation({
  operationId: 'resendWebhookEvent',
  summary: 'Send one event to an endpoint again',
  tag: 'Webhook endpoints',
});

export function registerResendWebhookEvent(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof Params> }>(
    '/webhook-endpoints/:id/resend/:event_id',
    { schema: { ...resendWebhookEventOperation, params: Params, response: { 200: DeliveryOut } } },
    async (request) => {
      const { repos } = services;
      const delivery = await resendEvent(
        { endpoints: repos.webhookEndpoints, events: repos.eventFeed, log: repos.webhookAttempts },
        services.clock,
        accountOf(request),
        request.params.id,
        request.params.event_id,
      );
      return toDeliveryOut(delivery);
    },
  );
}
