import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { retrieveWebhookEndpoint } from '../../../domain/webhooks/endpoints.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { EndpointParams, toWebhookEndpointOut, WebhookEndpointOut } from './webhook-endpoint-schema.ts';

/** GET /api/v1/webhook-endpoints/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const retrieveWebhookEndpointOperation = operation({
  operationId: 'retrieveWebhookEndpoint',
  summary: 'Retrieve a webhook endpoint',
  tag: 'Webhook endpoints',
});

export function registerRetrieveWebhookEndpoint(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof EndpointParams> }>(
    '/webhook-endpoints/:id',
    { schema: { ...retrieveWebhookEndpointOperation, params: EndpointParams, response: { 200: WebhookEndpointOut } } },
    async (request) =>
      toWebhookEndpointOut(
        await retrieveWebhookEndpoint(services.repos.webhookEndpoints, accountOf(request), request.params.id),
      ),
  );
}
