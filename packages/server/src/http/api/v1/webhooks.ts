import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../services.ts';
import { registerCreateWebhookEndpoint } from './create-webhook-endpoint.ts';
import { registerDeleteWebhookEndpoint } from './delete-webhook-endpoint.ts';
import { registerListEvents } from './list-events.ts';
import { registerListWebhookAttempts } from './list-webhook-attempts.ts';
import { registerListWebhookEndpoints } from './list-webhook-endpoints.ts';
import { registerResendWebhookEvent } from './resend-webhook-event.ts';
import { registerRetrieveEvent } from './retrieve-event.ts';
import { registerRetrieveWebhookEndpoint } from './retrieve-webhook-endpoint.ts';
import { registerRollWebhookEndpointSecret } from './roll-webhook-endpoint-secret.ts';
import { registerUpdateWebhookEndpoint } from './update-webhook-endpoint.ts';

/** Webhook endpoints, their attempt log, and the events API (docs/webhooks.md); inside the /api/v1 scope. */
export function registerWebhookRoutes(api: FastifyInstance, services: Services): void {
  registerCreateWebhookEndpoint(api, services);
  registerListWebhookEndpoints(api, services);
  registerRetrieveWebhookEndpoint(api, services);
  registerUpdateWebhookEndpoint(api, services);
  registerDeleteWebhookEndpoint(api, services);
  registerRollWebhookEndpointSecret(api, services);
  registerResendWebhookEvent(api, services);
  registerListWebhookAttempts(api, services);
  registerListEvents(api, services);
  registerRetrieveEvent(api, services);
}
