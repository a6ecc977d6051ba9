import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { listPaymentIntents } from '../../../domain/intents.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import type { Services } from '../../services.ts';
import { PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

const PaymentIntentListOut = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(PaymentIntentOut),
  has_more: Type.Boolean(),
});

export function registerListPaymentIntents(app: FastifyInstance, services: Services): void {
  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/payment-intents',
    { schema: { querystring: ListQuery, response: { 200: PaymentIntentListOut } } },
    async (request) => {
      const { limit = 10, starting_after } = request.query;
      const page = await listPaymentIntents(services.repos.intents, accountOf(request), limit, starting_after);
      return { object: 'list' as const, data: page.data.map(toPaymentIntentOut), has_more: page.hasMore };
    },
  );
}
