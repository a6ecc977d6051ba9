import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { listEvents } from '../../../domain/event-queries.ts';
import { eventView } from '../../../domain/events.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { EventOut } from './event-schema.ts';

const EventsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64 })),
    type: Type.Optional(Type.String({ maxLength: 64 })),
    object_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

const EventListOut = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(EventOut),
  has_more: Type.Boolean(),
});

/** GET /api/v1/events: its public contract, with the schemas below (docs/openapi.json). */
export const listEventsOperation = operation({
  operationId: 'listEvents',
  summary: 'List events, newest first',
  tag: 'Events',
});

/** Newest first, kept 30 days at least; `type` takes a type or a family (`payment_intent.*`). */
export function registerListEvents(app: FastifyInstance, services: Services): void {
  app.get<{ Querystring: Static<typeof EventsQuery> }>(
    '/events',
    { schema: { ...listEventsOperation, querystring: EventsQuery, response: { 200: EventListOut } } },
    async (request) => {
      const { limit = 10, starting_after, type, object_id } = request.query;
      const page = await listEvents(services.repos.eventFeed, accountOf(request), {
        limit,
        ...(starting_after !== undefined ? { startingAfter: starting_after } : {}),
        ...(type !== undefined ? { type } : {}),
        ...(object_id !== undefined ? { objectId: object_id } : {}),
      });
      return { object: 'list' as const, data: page.data.map(eventView), has_more: page.hasMore };
    },
  );
}
