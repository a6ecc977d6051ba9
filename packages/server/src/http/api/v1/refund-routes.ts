import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { listRefunds, retrieveRefund } from '../../../domain/refunds.ts';
import { REFUND_STATUSES, refundView } from '../../../domain/transactions.ts';
import type { Services } from '../../../services.ts';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';
import { RefundOut } from './transactions/transaction-schema.ts';

const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const RefundListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64 })),
    transaction: Type.Optional(Type.String({ maxLength: 64 })),
    payment_intent: Type.Optional(Type.String({ maxLength: 64 })),
    status: Type.Optional(Type.Enum([...REFUND_STATUSES])),
  },
  { additionalProperties: false },
);

const RefundListOut = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(RefundOut),
  has_more: Type.Boolean(),
});

/** GET /api/v1/refunds/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const retrieveRefundOperation = operation({
  operationId: 'retrieveRefund',
  summary: 'Retrieve a refund',
  tag: 'Refunds',
});

/** GET /api/v1/refunds: its public contract, with the schemas below (docs/openapi.json). */
export const listRefundsOperation = operation({
  operationId: 'listRefunds',
  summary: 'List refunds, newest first (by transaction, payment intent, status)',
  tag: 'Refunds',
});

/** GET /api/v1/refunds/{id} and GET /api/v1/refunds (decision 0243): Stripe-shaped, errors in the merchant API's shape. */
export function registerRefundRoutes(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof Params> }>(
    '/refunds/:id',
    { schema: { ...retrieveRefundOperation, params: Params, response: { 200: RefundOut } } },
    async (request) => refundView(await retrieveRefund(services.repos.refunds, accountOf(request), request.params.id)),
  );
  app.get<{ Querystring: Static<typeof RefundListQuery> }>(
    '/refunds',
    { schema: { ...listRefundsOperation, querystring: RefundListQuery, response: { 200: RefundListOut } } },
    async (request) => {
      const { limit = 10, starting_after, transaction, payment_intent, status } = request.query;
      const filter = {
        ...(transaction !== undefined ? { transaction } : {}),
        ...(payment_intent !== undefined ? { paymentIntent: payment_intent } : {}),
        ...(status !== undefined ? { status } : {}),
      };
      const page = await listRefunds(services.repos.refunds, accountOf(request), filter, limit, starting_after);
      return { object: 'list' as const, data: page.data.map(refundView), has_more: page.hasMore };
    },
  );
}
