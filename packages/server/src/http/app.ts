import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { CRASH_PLAN, crashPoint } from '../crash-points.ts';
import { newRequestId } from '../ids.ts';
import { logRequestCompleted } from '../logger.ts';
import type { Services } from '../services.ts';
import { registerCancelPaymentIntent } from './api/v1/cancel-payment-intent.ts';
import { registerCapturePaymentIntent } from './api/v1/capture-payment-intent.ts';
import { registerCreatePaymentIntent } from './api/v1/create-payment-intent.ts';
import { registerCreateProduct } from './api/v1/create-product.ts';
import { registerListPaymentIntents } from './api/v1/list-payment-intents.ts';
import { registerListProducts } from './api/v1/list-products.ts';
import { registerRefundRoutes } from './api/v1/refund-routes.ts';
import { registerRetrieveAccount } from './api/v1/retrieve-account.ts';
import { registerRetrievePaymentIntent } from './api/v1/retrieve-payment-intent.ts';
import { registerRetrieveProduct } from './api/v1/retrieve-product.ts';
import { registerTransactionsApi } from './api/v1/transactions/register.ts';
import { registerUpdatePaymentIntent } from './api/v1/update-payment-intent.ts';
import { registerUpdateProduct } from './api/v1/update-product.ts';
import { registerWebhookRoutes } from './api/v1/webhooks.ts';
import { registerCheckout } from './checkout/register.ts';
import { clientErrorHandler } from './client-errors.ts';
import { registerDashboard } from './dashboard/register.ts';
import { registerEmbedApi } from './embed/register.ts';
import { useApiErrors } from './errors.ts';
import { registerHealth } from './health.ts';
import { registerProcessorHooks } from './hooks/processor-hooks.ts';
import { registerLandingPage } from './landing-page.ts';
import { useOpenApi } from './openapi/document.ts';
import { useApiRateLimit } from './plugins/api-rate-limit.ts';
import { useIdempotency } from './plugins/idempotency.ts';
import { useMetrics } from './plugins/metrics.ts';
import { usePaymentMetrics } from './plugins/payment-metrics.ts';
import { decorateForKeys, secretKeyAuth } from './plugins/secret-key-auth.ts';
import { registerReferencePage } from './reference/reference-page.ts';
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
    // A 408 for a slow client, and the parser's other refusals, in the §7.2 shape.
    clientErrorHandler,
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
  decorateForKeys(app);
  // Hooks that never wait are written with `done`: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('Request-Id', request.id);
    done();
  });
  if (CRASH_PLAN?.point === 'before_response_sent') crashBeforeResponses(app);
  // Shutting down: a request in flight is answered, then its keep-alive connection is closed
  // (or the server would wait for the client to hang up).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    // `obolus listen` reads the events list every second: its polls would drown the log, as
    // would a flood refused by the rate limits (their first refusal a second is a warning).
    const poll = isEventsList(request.url) && reply.statusCode < 400;
    const throttled = reply.statusCode === 429 && request.url.startsWith('/api/');
    logRequestCompleted(request.log as Logger, poll || throttled ? 'debug' : 'info', {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    });
    done();
  });
  useApiErrors(app);
  const metrics = useMetrics(app);
  usePaymentMetrics(metrics, services);
  // First: it records every route registered after it.
  await useOpenApi(app);
  registerHealth(app, services);
  registerLandingPage(app, services);
  registerReferencePage(app, { baseUrl: services.config.baseUrl, appUrl: services.config.appUrl });
  await registerEmbedApi(app, services);
  await registerCheckout(app, services);
  await registerTransactionsApi(app, services);
  await registerDashboard(app, services);
  await registerProcessorHooks(app, services);

  await app.register(
    async (api) => {
      // No CORS headers, ever: the merchant API is for servers (spec §4.1).
      api.addHook('onRequest', (_request, reply, done) => {
        reply.header('Cache-Control', 'no-store');
        done();
      });
      useApiRateLimit(api, services.apiLimits, services.clock);
      api.addHook('onRequest', secretKeyAuth(services.credentials, services.clock));
      useIdempotency(api, services.repos.idempotency, services.clock);
      registerCreatePaymentIntent(api, services);
      registerRetrievePaymentIntent(api, services);
      registerListPaymentIntents(api, services);
      registerCancelPaymentIntent(api, services);
      registerCapturePaymentIntent(api, services);
      registerUpdatePaymentIntent(api, services);
      registerCreateProduct(api, services);
      registerRetrieveProduct(api, services);
      registerListProducts(api, services);
      registerUpdateProduct(api, services);
      registerWebhookRoutes(api, services);
      registerRefundRoutes(api, services);
      registerRetrieveAccount(api);
    },
    { prefix: '/api/v1' },
  );
  return { app, metrics };
}

/** GET /api/v1/events, the list `obolus listen` polls, told from the URL (Fastify's route options are rebuilt on every read). */
const isEventsList = (url: string) => url === '/api/v1/events' || url.startsWith('/api/v1/events?');

/**
 * Crash tests only (src/crash-points.ts): every hook has run, so whatever the request wrote
 * is committed and its idempotent response stored, and the process dies before the status
 * line leaves. Installed only when this point is armed: other processes never pay for it.
 */
function crashBeforeResponses(app: FastifyInstance): void {
  app.addHook('onRequest', async (_request, reply) => {
    const { raw } = reply;
    const writeHead = raw.writeHead.bind(raw) as (...args: unknown[]) => typeof raw;
    raw.writeHead = ((...args: unknown[]) => {
      crashPoint('before_response_sent');
      return writeHead(...args);
    }) as typeof raw.writeHead;
  });
}
