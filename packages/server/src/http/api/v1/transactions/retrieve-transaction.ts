import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { retrieveTransaction } from '../../../../domain/transaction-queries.ts';
import type { Services } from '../../../../services.ts';
import { EXAMPLES } from '../../../openapi/examples.ts';
import { operation } from '../../../openapi/operation.ts';
import { accountOf } from '../../../plugins/secret-key-auth.ts';
import { TransactionOut, toTransactionOut } from './transaction-schema.ts';

/** Any text: an id that names no transaction of the account is a 404, whatever its shape (spec §7.1). */
const Params = Type.Object({ id: Type.String() });

/** GET /api/v1/transactions/{id}: its public contract, with the schemas below (docs/openapi.json). */
export const retrieveTransactionOperation = operation({
  operationId: 'retrieveTransaction',
  summary: 'Retrieve a transaction',
  tag: 'Transactions',
  responseExample: EXAMPLES.transaction,
});

/** GET /api/v1/transactions/{id} (spec §4.2). */
export function registerRetrieveTransaction(app: FastifyInstance, services: Services): void {
  app.get<{ Params: Static<typeof Params> }>(
    '/transactions/:id',
    { schema: { ...retrieveTransactionOperation, params: Params, response: { 200: TransactionOut } } },
    async (request) =>
      toTransactionOut(await retrieveTransaction(services.repos, accountOf(request), request.params.id)),
  );
}
