import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { simulateChargeback } from '../../../../domain/chargebacks.ts';
import type { Services } from '../../../../services.ts';
import { operation } from '../../../openapi/operation.ts';
import { accountOf } from '../../../plugins/secret-key-auth.ts';
import { TransactionOut, toTransactionOut } from './transaction-schema.ts';

const Params = Type.Object({ id: Type.String() });
/** Nothing to say: an empty body (or `{}`) is the whole request. */
const NoBody = Type.Object({}, { additionalProperties: false });

/** POST /api/v1/sandbox/transactions/{id}/chargeback: its public contract, with the schemas below (docs/openapi.json). */
export const simulateChargebackOperation = operation({
  operationId: 'simulateChargeback',
  summary: 'Simulate a chargeback on a sandbox transaction',
  tag: 'Transactions',
  requestExample: {},
});

/** POST /api/v1/sandbox/transactions/{id}/chargeback: the card network's dispute, on demand. */
export function registerSimulateChargeback(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof Params> }>(
    '/sandbox/transactions/:id/chargeback',
    { schema: { ...simulateChargebackOperation, params: Params, body: NoBody, response: { 200: TransactionOut } } },
    async (request) =>
      toTransactionOut(await simulateChargeback(services.repos, services.clock, accountOf(request), request.params.id)),
  );
}
