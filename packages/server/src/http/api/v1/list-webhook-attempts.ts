import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { listEndpointAttempts } from '../../../domain/webhooks/delivery-queries.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { AttemptOut, toAttemptOut } from './webhook-delivery-schema.ts';
import { EndpointParams } from './webhook-endpoint-schema.ts';

const AttemptsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64 })),
    event_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

const AttemptListOut = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(AttemptOut),
  has_more: Type.Boolean(),
});

/** GET /api/v1/webhook-endpoints/{id}/attempts: its public contract, with the schemas below (docs/openapi.json). */
export const listWebhookAttemptsOperation = operation({
  operationId: 'listWebhookAttempts',
  summary: 'List the delivery attempts of an endpoint',
  tag: 'Webhook endpoints',
});

/** The attempt log of one endpoint, newest first: what was sent when, and what came back. */
export function registerListWebhookAttempts(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof EndpointParams>; Querystring: Static<typeof AttemptsQuery> }>(
    '/webhook-endpoints/:id/attempts',
    {
      schema: {
        ...listWebhookAttemptsOperation,
        params: EndpointParams,
        querystring: AttemptsQuery,
        response: { 200: AttemptListOut },
      },
    },
    async (request) => {
      const { limit = 10, starting_after, event_id } = request.query;
      const page = await listEndpointAttempts(
        { endpoints: services.repos.webhookEndpoints, log: services.repos.webhookAttempts },
        accountOf(request),
        request.params.id,
        {
          limit,
          ...(starting_after !== undefined ? { startingAfter: starting_after } : {}),
          ...(event_id !== undefined ? { eventId: event_id } : {}),
        },
      );
      return { object: 'list' as const, data: page.data.map(toAttemptOut), has_more: page.hasMore };
    },
  );
}
