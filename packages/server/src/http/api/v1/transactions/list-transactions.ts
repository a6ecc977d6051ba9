import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { listTransactions, type TransactionFilter } from '../../../../domain/transaction-queries.ts';
import { TX_STATUS, type TxStatus } from '../../../../domain/transactions.ts';
import type { Services } from '../../../../services.ts';
import { EXAMPLES } from '../../../openapi/examples.ts';
import { operation } from '../../../openapi/operation.ts';
import { accountOf } from '../../../plugins/secret-key-auth.ts';
import { ModeEnum } from '../schema-parts.ts';
import { TransactionOut, toTransactionOut } from './transaction-schema.ts';

/** Unix seconds, a fraction allowed (as `created` is answered); 10^10 is the year 2286. */
const Seconds = Type.Number({ minimum: 0, maximum: 10_000_000_000 });

/** Filter names and meanings: docs/transactions.md and docs/decisions/0013. */
export const ListTransactionsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    starting_after: Type.Optional(Type.String({ maxLength: 64 })),
    status: Type.Optional(Type.Integer({ enum: Object.values(TX_STATUS) })),
    mode: Type.Optional(ModeEnum),
    payment_intent: Type.Optional(Type.String({ maxLength: 64 })),
    product: Type.Optional(Type.String({ maxLength: 200 })),
    externalid: Type.Optional(Type.String({ maxLength: 200 })),
    'created[gt]': Type.Optional(Seconds),
    'created[gte]': Type.Optional(Seconds),
    'created[lt]': Type.Optional(Seconds),
    'created[lte]': Type.Optional(Seconds),
  },
  { additionalProperties: false },
);
type ListTransactionsQuery = Static<typeof ListTransactionsQuery>;

export const TransactionListOut = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(TransactionOut),
  has_more: Type.Boolean(),
});

/**
 * Seconds to milliseconds, undoing binary noise (1762000000.123 * 1000 is not exactly
 * 1762000000123) so that a `created` copied from a record matches that record.
 */
function toMs(seconds: number): number {
  const ms = seconds * 1000;
  return Math.abs(ms - Math.round(ms)) < 1e-3 ? Math.round(ms) : ms;
}

/** The four bounds as one inclusive range of whole milliseconds, as created_at is stored. */
export function createdRange(
  query: Pick<ListTransactionsQuery, 'created[gt]' | 'created[gte]' | 'created[lt]' | 'created[lte]'>,
): Pick<TransactionFilter, 'createdFrom' | 'createdTo'> {
  const from: number[] = [];
  const to: number[] = [];
  if (query['created[gte]'] !== undefined) from.push(Math.ceil(toMs(query['created[gte]'])));
  if (query['created[gt]'] !== undefined) from.push(Math.floor(toMs(query['created[gt]'])) + 1);
  if (query['created[lte]'] !== undefined) to.push(Math.floor(toMs(query['created[lte]'])));
  if (query['created[lt]'] !== undefined) to.push(Math.ceil(toMs(query['created[lt]'])) - 1);
  return {
    ...(from.length > 0 ? { createdFrom: Math.max(...from) } : {}),
    ...(to.length > 0 ? { createdTo: Math.min(...to) } : {}),
  };
}

function filterOf(query: ListTransactionsQuery): TransactionFilter {
  return {
    ...(query.status !== undefined ? { status: query.status as TxStatus } : {}),
    ...(query.mode !== undefined ? { mode: query.mode } : {}),
    ...(query.payment_intent !== undefined ? { paymentIntentId: query.payment_intent } : {}),
    ...(query.product !== undefined ? { productId: query.product } : {}),
    ...(query.externalid !== undefined ? { externalid: query.externalid } : {}),
    ...createdRange(query),
  };
}

/** GET /api/v1/transactions: its public contract, with the schemas below (docs/openapi.json). */
export const listTransactionsOperation = operation({
  operationId: 'listTransactions',
  summary: 'List transactions, newest first',
  tag: 'Transactions',
  responseExample: EXAMPLES.transactionList,
});

/** GET /api/v1/transactions: newest first, keyset pages (docs/decisions/0005). */
export function registerListTransactions(app: FastifyInstance, services: Services): void {
  app.get<{ Querystring: ListTransactionsQuery }>(
    '/transactions',
    {
      schema: {
        ...listTransactionsOperation,
        querystring: ListTransactionsQuery,
        response: { 200: TransactionListOut },
      },
    },
    async (request) => {
      const { limit = 10, starting_after } = request.query;
      const page = await listTransactions(services.repos, accountOf(request), {
        filter: filterOf(request.query),
        limit,
        startingAfter: starting_after,
      });
      return { object: 'list' as const, data: page.data.map(toTransactionOut), has_more: page.hasMore };
    },
  );
}
