import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { MAX_SECRET_GRACE_HOURS, rollEndpointSecret } from '../../../domain/webhooks/endpoint-changes.ts';
import type { Services } from '../../../services.ts';
import { apiAuditBy } from '../../api-audit.ts';
import { operation } from '../../openapi/operation.ts';
import { replayWithout } from '../../plugins/idempotency.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import {
  EndpointParams,
  toWebhookEndpointOut,
  WebhookEndpointWithSecretOut,
  withSecret,
} from './webhook-endpoint-schema.ts';

/** The body may be left out: the old secret then stops signing at once, as for a leaked one. */
export const RollSecretIn = Type.Object(
  { grace_period_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SECRET_GRACE_HOURS })) },
  { additionalProperties: false },
);
export type RollSecretIn = Static<typeof RollSecretIn>;

/** POST /api/v1/webhook-endpoints/{id}/secret/roll: its public contract, with the schemas below (docs/openapi.json). */
export const rollWebhookEndpointSecretOperation = operation({
  operationId: 'rollWebhookEndpointSecret',
  summary: 'Roll the signing secret of a webhook endpoint',
  tag: 'Webhook endpoints',
  requestExample: {
    grace_period_hours: 24,
  },
});

export function registerRollWebhookEndpointSecret(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof EndpointParams>; Body: RollSecretIn }>(
    '/webhook-endpoints/:id/secret/roll',
    {
      schema: {
        ...rollWebhookEndpointSecretOperation,
        params: EndpointParams,
        body: RollSecretIn,
        response: { 200: WebhookEndpointWithSecretOut },
      },
      // A POST without a body is a roll with the defaults, not a missing JSON object.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const endpoint = await rollEndpointSecret(
        services.repos.webhookEndpoints,
        services.clock,
        accountOf(request),
        request.params.id,
        request.body.grace_period_hours ?? 0,
        // Its audit event commits with the new secret (decision 0205).
        apiAuditBy(request),
      );
      replayWithout(request, toWebhookEndpointOut(endpoint));
      return withSecret(endpoint);
    },
  );
}
