import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { operation } from '../../openapi/operation.ts';
import { accountOf } from '../../plugins/secret-key-auth.ts';

/** The account a secret key belongs to, as Stripe's `GET /v1/account` answers it. */
export const AccountOut = Type.Object({
  id: Type.String({ description: 'acct_…: the same whatever key of the account asks (keys roll, the id stays)' }),
  object: Type.Literal('account'),
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
});

/** GET /api/v1/account: its public contract, with the schemas below (docs/openapi.json). */
export const retrieveAccountOperation = operation({
  operationId: 'retrieveAccount',
  summary: 'Retrieve the account of this key',
  tag: 'Account',
});

/** `GET /api/v1/account`: who this key is; `obolus listen` names its signing secret by the answer. */
export function registerRetrieveAccount(app: FastifyInstance): void {
  app.get('/account', { schema: { ...retrieveAccountOperation, response: { 200: AccountOut } } }, async (request) => {
    const account = accountOf(request);
    return { id: account.id, object: 'account' as const, name: account.name, status: account.status };
  });
}
