import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resumeSession } from '../../domain/dashboard/sessions.ts';
import { ApiError } from '../../domain/errors.ts';
import type { Services } from '../../services.ts';
import { isDatabaseUnavailable } from '../../store/driver-errors.ts';
import { ERROR_STATUS } from '../error-statuses.ts';
import { databaseUnavailable, logFailure } from '../errors.ts';
import { cookieOf, Refusal, SESSION_COOKIE, THEME_COOKIE, type Theme } from './context.ts';
import { registerCopyScript } from './copy-link.ts';
import { registerDeveloperPages } from './developer.ts';
import { errorPage } from './error-page.ts';
import { registerHome } from './home.ts';
import { page } from './layout.ts';
import { html } from './markup.ts';
import { registerPaymentChanges } from './payment-changes.ts';
import { registerPaymentPage } from './payment-page.ts';
import { registerPayments } from './payments.ts';
import { registerProducts } from './products.ts';
import { registerSearch } from './search.ts';
import { confirmPasswordForm, PasswordNeeded, registerSecurityPages } from './security.ts';
import { registerSignIn } from './sign-in.ts';
import { DASHBOARD_STYLE_HASH } from './style.ts';
import { registerWebhookPages } from './webhooks.ts';

const FORM_LIMIT_BYTES = 16 * 1024;

const CSP = [
  "default-src 'none'",
  `style-src ${DASHBOARD_STYLE_HASH}`,
  // The one script (copy-link.ts) is a file of the dashboard itself; nothing inline runs.
  "script-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * The merchant dashboard at {app_url}/dashboard (docs/dashboard.md): server-rendered pages,
 * one same-origin script that only adds a Copy button, a session cookie that never reaches /api/v1 (Path=/dashboard, and the
 * API reads only bearer keys), CSRF tokens and an Origin check on every POST.
 */
export async function registerDashboard(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(
    async (scope) => {
      scope.decorateRequest('dashboard', null);
      scope.decorateRequest('theme', 'system');
      scope.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
        (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
      );
      scope.addHook('onRequest', async (request, reply) => {
        reply
          .header('Content-Security-Policy', CSP)
          .header('X-Content-Type-Options', 'nosniff')
          .header('Referrer-Policy', 'same-origin')
          .header('X-Frame-Options', 'DENY')
          .header('Cache-Control', 'no-store');
        request.theme = themeOf(cookieOf(request, THEME_COOKIE));
        const token = cookieOf(request, SESSION_COOKIE);
        if (!token) return;
        const resumed = await resumeSession(
          { sessions: services.repos.dashboard, accounts: services.repos.accounts },
          services.clock,
          token,
        );
        if (resumed) request.dashboard = { ...resumed, theme: request.theme };
      });
      scope.addHook('preHandler', async (request) => {
        if (request.method !== 'POST') return;
        if (!sameOrigin(request, services.config.appUrl)) throw refused('This form was sent from another site.');
      });
      scope.setErrorHandler((error: FastifyError, request, reply) => renderError(error, request, reply));
      scope.setNotFoundHandler((request, reply) =>
        reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(errorPage(request, 'Not found', 'There is no such page.')),
      );
      registerCopyScript(scope);
      registerSignIn(scope, services);
      registerHome(scope, services);
      registerPayments(scope, services);
      registerPaymentPage(scope, services);
      registerPaymentChanges(scope, services);
      registerProducts(scope, services);
      registerDeveloperPages(scope, services);
      registerWebhookPages(scope, services);
      registerSearch(scope, services);
      registerSecurityPages(scope, services);
    },
    { prefix: '/dashboard' },
  );
}

const themeOf = (text: string | undefined): Theme => (text === 'light' || text === 'dark' ? text : 'system');

const refused = (message: string) => new Refusal(403, message);

/**
 * Browsers send Origin on every POST. It must be the app URL's origin, or the origin the
 * request was addressed to (an operator reaching the dashboard by another host name).
 */
function sameOrigin(request: FastifyRequest, appUrl: string): boolean {
  const origin = request.headers.origin;
  if (!origin || origin === 'null') return false;
  return origin === new URL(appUrl).origin || origin === `${request.protocol}://${request.host}`;
}

function renderError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  let status = 500;
  let message = 'Something went wrong on our side. Try again; if it keeps happening, look at the server log.';
  if (error instanceof PasswordNeeded && request.dashboard) {
    return reply
      .code(403)
      .type('text/html; charset=utf-8')
      .send(
        page(request.dashboard, {
          title: 'Confirm your password',
          section: '',
          body: confirmPasswordForm(request.dashboard, error.back),
        }),
      );
  }
  if (error instanceof Refusal) {
    status = error.status;
    message = error.message;
  } else if (isDatabaseUnavailable(error)) {
    const unavailable = databaseUnavailable();
    status = ERROR_STATUS[unavailable.code].status;
    message = 'The dashboard cannot reach its database at the moment. Try again in a few seconds.';
    reply.header('Retry-After', String(unavailable.retryAfterSeconds));
    logFailure(request, unavailable, error);
  } else if (error instanceof ApiError) {
    status = ERROR_STATUS[error.code].status;
    message = error.message;
  } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    status = error.statusCode;
    message = status === 413 ? 'The form is too large.' : 'The request could not be read.';
  } else {
    request.log.error({ err: error }, 'dashboard page failed');
  }
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(errorPage(request, status >= 500 ? 'Error' : 'Refused', message, html``));
}
