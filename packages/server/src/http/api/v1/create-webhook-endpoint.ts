import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { webhookPolicy } from '../../../config.ts';
import { createWebhookEndpoint } from '../../../domain/webhooks/endpoints.ts';
import type { Services } from '../../../services.ts';
import { apiAuditBy } from '../../api-audit.ts';
import { operation } from '../../openapi/operation.ts';
import { replayWithout } from '../../plugins/idempotency.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { ModeEnum } from './schema-parts.ts';
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
    mode: Type.Optional(ModeEnum),
  },
  { additionalProperties: false },
);
export type CreateWebhookEndpointIn = Static<typeof CreateWebhookEndpointIn>;

/** POST /api/v1/webhook-endpoints: its public contract, with the schemas below (docs/openapi.json). */
export const createWebhookEndpointOperation = operation({
  operationId: 'createWebhookEndpoint',
  summary: 'Create a webhook endpoint',
  tag: 'Webhook endpoints',
  requestExample: {
    url: 'https://shop.example.com/webhooks/obolus',
    enabled_events: ['payment_intent.succeeded', 'transaction.updated'],
  },
});

export function registerCreateWebhookEndpoint(app: FastifyInstance, services: Services): void {
  app.post<{ Body: CreateWebhookEndpointIn }>(
    '/webhook-endpoints',
    {
      schema: {
        ...createWebhookEndpointOperation,
        body: CreateWebhookEndpointIn,
        response: { 200: WebhookEndpointWithSecretOut },
      },
    },
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
