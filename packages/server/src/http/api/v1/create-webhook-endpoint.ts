import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { webhookPolicy } from '../../../config.ts';
import { createWebhookEndpoint } from '../../../domain/webhooks/endpoints.ts';
import type { Services } from '../../../services.ts';
import { apiAuditBy } from '../../api-audit.ts';
import { replayWithout } from '../../plugins/idempotency.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import {
  EnabledEvents,
  EndpointDescription,
  EndpointUrl,
  toWebhookEndpointOut,
  WebhookEndpointWithSecretOut,
  withSecret,
} from './webhook-endpoint-schema.ts';

export const CreateWebhookEndpointIn = Type.Object(
  {
    url: EndpointUrl,
    enabled_events: EnabledEvents,
    description: Type.Optional(EndpointDescription),
    enabled: Type.Optional(Type.Boolean()),
    mode: Type.Optional(Type.Enum(['live', 'sandbox'])),
  },
  { additionalProperties: false },
);
export type CreateWebhookEndpointIn = Static<typeof CreateWebhookEndpointIn>;

export function registerCreateWebhookEndpoint(app: FastifyInstance, services: Services): void {
  app.post<{ Body: CreateWebhookEndpointIn }>(
    '/webhook-endpoints',
    { schema: { body: CreateWebhookEndpointIn, response: { 200: WebhookEndpointWithSecretOut } } },
    async (request) => {
      const endpoint = await createWebhookEndpoint(
        services.repos.webhookEndpoints,
        services.clock,
        webhookPolicy(services.config),
        accountOf(request),
        request.body,
        // Its audit event commits with the endpoint (decision 0205).
        apiAuditBy(request),
      );
      replayWithout(request, toWebhookEndpointOut(endpoint));
      return withSecret(endpoint);
    },
  );
}
