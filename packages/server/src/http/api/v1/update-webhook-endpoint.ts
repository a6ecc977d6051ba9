import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { webhookPolicy } from '../../../config.ts';
import { updateWebhookEndpoint } from '../../../domain/webhooks/endpoint-changes.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { ModeEnum } from './schema-parts.ts';
import {
  EnabledEvents,
  EndpointDescription,
  EndpointParams,
  EndpointUrl,
  toWebhookEndpointOut,
  WebhookEndpointOut,
} from './webhook-endpoint-schema.ts';

/** Only what is sent changes; null clears the description; `enabled` turns delivery on and off. */
export const UpdateWebhookEndpointIn = Type.Object(
  {
    url: Type.Optional(EndpointUrl),
    enabled_events: Type.Optional(EnabledEvents),
    description: Type.Optional(Type.Union([EndpointDescription, Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
    mode: Type.Optional(ModeEnum),
  },
  { additionalProperties: false },
);
export type UpdateWebhookEndpointIn = Static<typeof UpdateWebhookEndpointIn>;

/** POST /api/v1/webhook-endpoints/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const updateWebhookEndpointOperation = operation({
  operationId: 'updateWebhookEndpoint',
  summary: 'Update a webhook endpoint',
  tag: 'Webhook endpoints',
  requestExample: {
    enabled: false,
  },
});

export function registerUpdateWebhookEndpoint(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof EndpointParams>; Body: UpdateWebhookEndpointIn }>(
    '/webhook-endpoints/:id',
    {
      schema: {
        ...updateWebhookEndpointOperation,
        params: EndpointParams,
        body: UpdateWebhookEndpointIn,
        response: { 200: WebhookEndpointOut },
      },
    },
    async (request) => {
      const endpoint = await updateWebhookEndpoint(
        services.repos.webhookEndpoints,
        services.clock,
        webhookPolicy(services.config),
        accountOf(request),
        request.params.id,
        request.body,
      );
      return toWebhookEndpointOut(endpoint);
    },
  );
}
