import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { refundTransaction } from '../../../../domain/refunds.ts';
import { REFUND_REASONS } from '../../../../domain/transactions.ts';
import type { Services } from '../../../../services.ts';
import { refundDeps } from '../../../../services.ts';
import { apiAuditBy } from '../../../api-audit.ts';
import { operation } from '../../../openapi/operation.ts';
import { idempotentWrite } from '../../../plugins/idempotency.ts';
import { accountOf } from '../../../plugins/secret-key-auth.ts';
import { Metadata } from '../payment-intent-schema.ts';
import { Amount } from '../schema-parts.ts';
import { RefundCreatedOut, toRefundCreatedOut } from './transaction-schema.ts';

const Params = Type.Object({ id: Type.String() });

/** `amount` in cents; without it, everything not yet refunded. An empty body is `{}`. */
export const CreateRefundIn = Type.Object(
  {
    amount: Type.Optional(Amount()),
    reason: Type.Optional(Type.Enum([...REFUND_REASONS])),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

/** POST /api/v1/transactions/{id}/refunds: its public contract, with the schemas below (docs/openapi.json). */
export const createRefundOperation = operation({
  operationId: 'createRefund',
  summary: 'Refund a transaction, fully or in part',
  tag: 'Refunds',
  requestExample: {
    amount: 500,
  },
});

/** POST /api/v1/transactions/{id}/refunds (docs/transactions.md, docs/decisions/0011). */
export function registerCreateRefund(app: FastifyInstance, services: Services): void {
  app.post<{ Params: Static<typeof Params>; Body: Static<typeof CreateRefundIn> }>(
    '/transactions/:id/refunds',
    { schema: { ...createRefundOperation, params: Params, body: CreateRefundIn, response: { 200: RefundCreatedOut } } },
    async (request) => {
      const made = await refundTransaction(
        refundDeps(services),
        services.clock,
        accountOf(request),
        request.params.id,
        request.body,
        idempotentWrite(request),
        // Its audit event commits with the refund (decision 0205).
        apiAuditBy(request),
      );
      return toRefundCreatedOut(made);
    },
  );
}
