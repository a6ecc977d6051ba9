import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../../services.ts';
import { useApiRateLimit } from '../../../plugins/api-rate-limit.ts';
import { useIdempotency } from '../../../plugins/idempotency.ts';
import { secretKeyAuth } from '../../../plugins/secret-key-auth.ts';
import { registerCreateRefund } from './create-refund.ts';
import { registerListTransactions } from './list-transactions.ts';
import { usePlainErrors, usePlainNotFound } from './plain-errors.ts';
import { registerRetrieveTransaction } from './retrieve-transaction.ts';
import { registerSimulateChargeback } from './simulate-chargeback.ts';

/**
 * The transactions surface ({app_url}/api/v1/transactions…, spec §4.2): a scope of its own
 * because its errors are `{"error": "<message>"}`. Bearer secret key, no CORS headers.
 */
export async function registerTransactionsApi(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(
    async (scope) => {
      usePlainErrors(scope);
      acceptEmptyJsonBodies(scope);
      scope.addHook('onRequest', (_request, reply, done) => {
        reply.header('Cache-Control', 'no-store');
        done();
      });
      useApiRateLimit(scope, services.apiLimits, services.clock);
      scope.addHook('onRequest', secretKeyAuth(services.credentials, services.clock));
      useIdempotency(scope, services.repos.idempotency, services.clock);
      registerRetrieveTransaction(scope, services);
      registerListTransactions(scope, services);
      registerCreateRefund(scope, services);
      registerSimulateChargeback(scope, services);
      for (const prefix of ['/transactions', '/sandbox/transactions']) {
        await scope.register(async (paths) => usePlainNotFound(paths), { prefix });
      }
    },
    { prefix: '/api/v1' },
  );
}

/**
 * The POSTs here take optional bodies (a full refund needs none), so no body and an empty
 * JSON body both mean `{}` instead of a 400. Anything else goes to Fastify's own JSON parser.
 */
function acceptEmptyJsonBodies(scope: FastifyInstance): void {
  const parseJson = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text === '') return done(null, {});
    return parseJson(request, text, done);
  });
  scope.addHook('preValidation', (request, _reply, done) => {
    if (request.method === 'POST' && request.body === undefined) request.body = {};
    done();
  });
}
