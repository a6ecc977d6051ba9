import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { listWebhookEndpoints } from '../../../domain/webhooks/endpoints.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { ListQuery, toWebhookEndpointOut, WebhookEndpointOut } from './webhook-endpoint-schema.ts';

const WebhookEndpointListOut = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(WebhookEndpointOut),
  has_more: Type.Boolean(),
});

/** GET /api/v1/webhook-endpoints: its public contract, with the schemas below (docs/openapi.json). */
export const listWebhookEndpointsOperation = operation({
  operationId: 'listWebhookEndpoints',
  summary: 'List webhook endpoints',
  tag: 'Webhook endpoints',
});

export function registerListWebhookEndpoints(app: FastifyInstance, services: Services): void {
  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/webhook-endpoints',
    { schema: { ...listWebhookEndpointsOperation, querystring: ListQuery, response: { 200: WebhookEndpointListOut } } },
    async (request) => {
      const { limit = 10, starting_after } = request.query;
      const page = await listWebhookEndpoints(
        services.repos.webhookEndpoints,
        accountOf(request),
        limit,
        starting_after,
      );
      return { object: 'list' as const, data: page.data.map(toWebhookEndpointOut), has_more: page.hasMore };
    },
  );
}
