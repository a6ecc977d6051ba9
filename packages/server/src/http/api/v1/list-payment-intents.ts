import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { INTENT_STATUSES, type IntentFilter, listPaymentIntents } from '../../../domain/intents.ts';
import type { Services } from '../../../services.ts';
import { EXAMPLES } from '../../openapi/examples.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { PaymentIntentOut, toPaymentIntentOut } from './payment-intent-schema.ts';
import { ModeEnum } from './schema-parts.ts';
import { createdRange } from './transactions/list-transactions.ts';

/** Unix seconds, a fraction allowed (as on the transactions list); 10^10 is the year 2286. */
const Seconds = Type.Number({ minimum: 0, maximum: 10_000_000_000 });

/** A page of a list: its size and the id it starts after (products share it). */
export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** Filters (decision 0244): each narrows; an order is found by its reference in one call. */
export const ListIntentsQuery = Type.Object(
  {
    ...ListQuery.properties,
    status: Type.Optional(Type.Enum([...INTENT_STATUSES])),
    mode: Type.Optional(ModeEnum),
    reference: Type.Optional(Type.String({ maxLength: 200 })),
    externalid: Type.Optional(Type.String({ maxLength: 200 })),
    'created[gt]': Type.Optional(Seconds),
    'created[gte]': Type.Optional(Seconds),
    'created[lt]': Type.Optional(Seconds),
    'created[lte]': Type.Optional(Seconds),
  },
  { additionalProperties: false },
);

const PaymentIntentListOut = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(PaymentIntentOut),
  has_more: Type.Boolean(),
});

/** GET /api/v1/payment-intents: its public contract, with the schemas below (docs/openapi.json). */
export const listPaymentIntentsOperation = operation({
  operationId: 'listPaymentIntents',
  summary: 'List payment intents, newest first',
  tag: 'Payment intents',
  responseExample: EXAMPLES.intentList,
});

export function registerListPaymentIntents(app: FastifyInstance, services: Services): void {
  app.get<{ Querystring: Static<typeof ListIntentsQuery> }>(
    '/payment-intents',
    {
      schema: {
        ...listPaymentIntentsOperation,
        querystring: ListIntentsQuery,
        response: { 200: PaymentIntentListOut },
      },
    },
    async (request) => {
      const { limit = 10, starting_after, status, mode, reference, externalid } = request.query;
      const filter: IntentFilter = {
        ...(status !== undefined ? { status } : {}),
        ...(mode !== undefined ? { mode } : {}),
        ...(reference !== undefined ? { reference } : {}),
        ...(externalid !== undefined ? { externalid } : {}),
        ...createdRange(request.query),
      };
      const page = await listPaymentIntents(services.repos.intents, accountOf(request), limit, starting_after, filter);
      return { object: 'list' as const, data: page.data.map(toPaymentIntentOut), has_more: page.hasMore };
    },
  );
}
