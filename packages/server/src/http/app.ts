import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { newRequestId } from '../ids.ts';
import { registerCreatePaymentIntent } from './api/v1/create-payment-intent.ts';
import { registerCreateProduct } from './api/v1/create-product.ts';
import { registerListPaymentIntents } from './api/v1/list-payment-intents.ts';
import { registerListProducts } from './api/v1/list-products.ts';
import { registerRetrievePaymentIntent } from './api/v1/retrieve-payment-intent.ts';
import { registerRetrieveProduct } from './api/v1/retrieve-product.ts';
import { registerTransactionsApi } from './api/v1/transactions/register.ts';
import { registerUpdateProduct } from './api/v1/update-product.ts';
import { registerWebhookRoutes } from './api/v1/webhooks.ts';
import { registerCheckout } from './checkout/register.ts';
import { registerEmbedApi } from './embed/register.ts';
import { useApiErrors } from './errors.ts';
import { registerHealth } from './health.ts';
import { registerProcessorHooks } from './hooks/processor-hooks.ts';
import { useIdempotency } from './plugins/idempotency.ts';
import { useMetrics } from './plugins/metrics.ts';
import { usePaymentMetrics } from './plugins/payment-metrics.ts';
import { secretKeyAuth } from './plugins/secret-key-auth.ts';
import type { Services } from './services.ts';
import { validatorCompiler } from './validation.ts';

export const BODY_LIMIT_BYTES = 64 * 1024;
const MAX_PARAM_LENGTH = 2048;

export async function buildApp(services: Services, logger: Logger): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => newRequestId(),
    // Request ids are ours alone: an incoming header is never trusted as one.
    requestIdHeader: false,
    // One line per request, written when it is answered (below), instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: services.config.trustProxy,
    return503OnClosing: true,
    routerOptions: {
      // Ids longer than any real one still reach the routes and get their own 404.
      maxParamLength: MAX_PARAM_LENGTH,
      onMaxParamLength: (_path, _req, res) => {
        // Beyond that the router answers before any route: keep the error a JSON object.
        res.writeHead(414, { 'content-type': 'application/json; charset=utf-8' });
        res.end(
          JSON.stringify({
            error: { type: 'invalid_request', code: 'route_not_found', message: 'The URL is too long.' },
          }),
        );
      },
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  // The merchant API speaks JSON only: anything else is a 415, not a string to validate.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('account', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request completed',
    );
  });
  useApiErrors(app);
  usePaymentMetrics(useMetrics(app), services);
  registerHealth(app, services);
  await registerEmbedApi(app, services);
  await registerCheckout(app, services);
  await registerTransactionsApi(app, services);
  await registerProcessorHooks(app, services);

  await app.register(
    async (api) => {
      // No CORS headers, ever: the merchant API is for servers (spec §4.1).
      api.addHook('onRequest', async (_request, reply) => {
        reply.header('Cache-Control', 'no-store');
      });
      api.addHook('onRequest', secretKeyAuth(services.credentials, services.clock));
      useIdempotency(api, services.repos.idempotency, services.clock);
      registerCreatePaymentIntent(api, services);
      registerRetrievePaymentIntent(api, services);
      registerListPaymentIntents(api, services);
      registerCreateProduct(api, services);
      registerRetrieveProduct(api, services);
      registerListProducts(api, services);
      registerUpdateProduct(api, services);
      registerWebhookRoutes(api, services);
    },
    { prefix: '/api/v1' },
  );
  return app;
}
