import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
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
import { registerDashboard } from './dashboard/register.ts';
import { registerEmbedApi } from './embed/register.ts';
import { useApiErrors } from './errors.ts';
import { registerHealth } from './health.ts';
import { registerProcessorHooks } from './hooks/processor-hooks.ts';
import { registerLandingPage } from './landing-page.ts';
import { useOpenApi } from './openapi/document.ts';
import { useIdempotency } from './plugins/idempotency.ts';
import { useMetrics } from './plugins/metrics.ts';
import { usePaymentMetrics } from './plugins/payment-metrics.ts';
import { secretKeyAuth } from './plugins/secret-key-auth.ts';
import { registerReferencePage } from './reference/reference-page.ts';
import type { Services } from './services.ts';
import { fastifyTrustProxy, warnOfUntrustedProxy } from './trusted-proxies.ts';
import { refuseDeepBodies, validatorCompiler } from './validation.ts';

export const BODY_LIMIT_BYTES = 64 * 1024;
const MAX_PARAM_LENGTH = 2048;

/** The public app, and the metrics it counts (served apart: plugins/metrics.ts `serveMetrics`). */
export async function buildApp(
  services: Services,
  logger: Logger,
): Promise<{ app: FastifyInstance; metrics: Registry }> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    genReqId: () => newRequestId(),
    // Request ids are ours alone: an incoming header is never trusted as one.
    requestIdHeader: false,
    // One line per request, written when it is answered (below), instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Slowloris: a client trickling its headers or body holds a connection only this long.
    requestTimeout: services.config.requestTimeoutMs,
    http: {
      headersTimeout: services.config.headersTimeoutMs,
      requestTimeout: services.config.requestTimeoutMs,
      // Node checks the two timeouts this often (30 s by default): a tenth of the shorter one.
      connectionsCheckingInterval: Math.max(50, Math.round(services.config.headersTimeoutMs / 10)),
    },
    trustProxy: fastifyTrustProxy(services.config.trustProxy),
    return503OnClosing: true,
    routerOptions: {
      // Ids longer than any real one still reach the routes and get their own 404.
      maxParamLength: MAX_PARAM_LENGTH,
      onMaxParamLength: (_path, _req, res) => {
        // Beyond that the router answers before any route, on every surface: keep the §7.2 error.
        const requestId = newRequestId();
        res.writeHead(414, { 'content-type': 'application/json; charset=utf-8', 'request-id': requestId });
        res.end(
          JSON.stringify({
            error: {
              type: 'invalid_request',
              code: 'route_not_found',
              message: 'The URL is too long.',
              request_id: requestId,
            },
          }),
        );
      },
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  refuseDeepBodies(app);
  warnOfUntrustedProxy(app, services.config.trustProxy);
  // The merchant API speaks JSON only: anything else is a 415, not a string to validate.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('account', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
  });
  // Shutting down: a request in flight is answered, then its keep-alive connection is closed
  // (or the server would wait for the client to hang up).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('Connection', 'close');
  });
  app.addHook('onResponse', async (request, reply) => {
    // `obolus listen` reads the events list every second: its polls would drown the log.
    const poll = request.routeOptions.url === '/api/v1/events' && reply.statusCode < 400;
    request.log[poll ? 'debug' : 'info'](
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
  const metrics = useMetrics(app);
  usePaymentMetrics(metrics, services);
  // First: it records every route registered after it.
  await useOpenApi(app);
  registerHealth(app, services);
  registerLandingPage(app, services);
  registerReferencePage(app);
  await registerEmbedApi(app, services);
  await registerCheckout(app, services);
  await registerTransactionsApi(app, services);
  await registerDashboard(app, services);
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
  return { app, metrics };
}
