import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { deleteWebhookEndpoint } from '../../../domain/webhooks/endpoint-changes.ts';
import type { Services } from '../../../services.ts';
import { apiAuditBy } from '../../api-audit.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { EndpointParams } from './webhook-endpoint-schema.ts';

const DeletedOut = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_endpoint'),
  deleted: Type.Literal(true),
});

/** DELETE /api/v1/webhook-endpoints/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const deleteWebhookEndpointOperation = operation({
  operationId: 'deleteWebhookEndpoint',
  summary: 'Delete a webhook endpoint',
  tag: 'Webhook endpoints',
});

/** The endpoint goes with its pending deliveries and its attempt log; events stay. */
export function registerDeleteWebhookEndpoint(app: FastifyInstance, services: Services): void {
  app.delete<{ Params: Static<typeof EndpointParams> }>(
    '/webhook-endpoints/:id',
    { schema: { ...deleteWebhookEndpointOperation, params: EndpointParams, response: { 200: DeletedOut } } },
    async (request) => {
      // Its audit event commits with the deletion (decision 0205).
      await deleteWebhookEndpoint(services.repos.webhookEndpoints, accountOf(request), request.params.id, {
        by: apiAuditBy(request),
        clock: services.clock,
      });
      return { id: request.params.id, object: 'webhook_endpoint' as const, deleted: true as const };
    },
  );
}
