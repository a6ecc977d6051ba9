import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { retrieveWebhookEndpoint } from '../../../domain/webhooks/endpoints.ts';
import type { Services } from '../../../services.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { EndpointParams, toWebhookEndpointOut, WebhookEndpointOut } from './webhook-endpoint-schema.ts';

export function registerRetrieveWebhookEndpoint(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof EndpointParams> }>(
    '/webhook-endpoints/:id',
    { schema: { params: EndpointParams, response: { 200: WebhookEndpointOut } } },
    async (request) =>
      toWebhookEndpointOut(
        await retrieveWebhookEndpoint(services.repos.webhookEndpoints, accountOf(request), request.params.id),
      ),
  );
}
