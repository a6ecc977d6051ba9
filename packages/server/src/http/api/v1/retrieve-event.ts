import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { retrieveEvent } from '../../../domain/event-queries.ts';
import { eventView } from '../../../domain/events.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { EventOut } from './event-schema.ts';

const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** GET /api/v1/events/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const retrieveEventOperation = operation({
  operationId: 'retrieveEvent',
  summary: 'Retrieve an event',
  tag: 'Events',
});

export function registerRetrieveEvent(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof Params> }>(
    '/events/:id',
    { schema: { ...retrieveEventOperation, params: Params, response: { 200: EventOut } } },
    async (request) => eventView(await retrieveEvent(services.repos.eventFeed, accountOf(request), request.params.id)),
  );
}
