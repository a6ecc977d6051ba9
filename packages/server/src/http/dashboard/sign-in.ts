import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MINUTE } from '../../clock.ts';
import { PasswordHashingBusy } from '../../crypto/password-hash-pool.ts';
import { clientNetwork } from '../../domain/client-network.ts';
import { SESSION_ABSOLUTE_MS, signIn, signOut, switchMode } from '../../domain/dashboard/sessions.ts';
import type { Services } from '../../services.ts';
import { field, SESSION_COOKIE, seeOther, THEME_COOKIE, type Theme } from './context.ts';
import { publicPage } from './layout.ts';
import { html } from './markup.ts';
import { backPath, postAction } from './routes.ts';

/** The form a signed-out browser gets at /dashboard; `message` after a refused attempt. */
export function signInPage(theme: Theme, message?: string, email = ''): string {
  return publicPage(
    theme,
    'Sign in',
    html`<div class="signin panel"><h1>Sign in to your dashboard</h1>
${message ? html`<p class="notice error" role="alert">${message}</p>` : ''}
<form method="post" action="/dashboard/sign-in">
<label>Email<input type="email" name="email" autocomplete="username" required maxlength="254" value="${email}"></label>
<label>Password<input type="password" name="password" autocomplete="current-password" required maxlength="1024"></label>
<button type="submit">Sign in</button></form>
<p class="muted">No password yet? The operator sets one with <code>npx obolus accounts set-password &lt;account-id&gt;</code>.</p></div>`,
  );
}

const GENERIC_REFUSAL = 'That email and password do not match an account.';

/** The session cookie: `value` '' with 0 ends it in the browser. */
export const sessionCookie = (services: Services, value: string, maxAgeSeconds: number) =>
  cookie(services, SESSION_COOKIE, value, maxAgeSeconds);

function cookie(services: Services, name: string, value: string, maxAgeSeconds: number): string {
  const secure = services.config.appUrl.startsWith('https:') ? '; Secure' : '';
  return `${name}=${value}; Path=/dashboard; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}

export function registerSignIn(scope: FastifyInstance, services: Services): void {
  scope.post('/sign-in', async (request: FastifyRequest, reply: FastifyReply) => {
    const email = field(request, 'email').slice(0, 254);
    reply.type('text/html; charset=utf-8');
    // Per client network, before anything else (decision 0202): a flood costs one counter write a request.
    const limit = services.config.signInRateLimit;
    const now = services.clock.now();
    if (
      limit > 0 &&
      (await services.repos.rateCounters.reserve('sign_in_requests', clientNetwork(request.ip), MINUTE, now, limit)) ===
        null
    ) {
      return reply
        .code(429)
        .header('Retry-After', String(Math.ceil((MINUTE - (now % MINUTE)) / 1000)))
        .send(signInPage(request.theme, 'Too many sign-ins from your network. Try again in a minute.', email));
    }
    const result = await signIn(
      { sessions: services.repos.dashboard, counters: services.repos.rateCounters, audit: services.repos.audit },
      services.clock,
      { email, password: field(request, 'password'), clientIp: request.ip },
    ).catch((error: unknown) => {
      if (error instanceof PasswordHashingBusy) return null;
      throw error;
    });
    if (result === null) {
      // Every password-hashing thread busy and its queue full: nothing was checked or counted.
      return reply
        .code(503)
        .header('Retry-After', '1')
        .send(signInPage(request.theme, 'Signing in is busy right now. Try again in a moment.', email));
    }
    if (!result.ok && result.reason === 'rate_limited') {
      const minutes = Math.ceil(result.retryAfterMs / 60_000);
      return reply
        .code(429)
        .header('Retry-After', String(Math.ceil(result.retryAfterMs / 1000)))
        .send(signInPage(request.theme, `Too many failed sign-ins. Try again in ${minutes} minutes.`, email));
    }
    if (!result.ok) return reply.code(401).send(signInPage(request.theme, GENERIC_REFUSAL, email));
    reply.header('Set-Cookie', cookie(services, SESSION_COOKIE, result.token, SESSION_ABSOLUTE_MS / 1000));
    return seeOther(reply, '/dashboard');
  });

  postAction(scope, '/sign-out', async (signed, request, reply) => {
    await signOut(services.repos.dashboard, services.clock, signed.session, request.ip);
    reply.header('Set-Cookie', cookie(services, SESSION_COOKIE, '', 0));
    return seeOther(reply, '/dashboard');
  });

  postAction(scope, '/mode', async (signed, request, reply) => {
    await switchMode(services.repos.dashboard, signed.session, field(request, 'mode') === 'live' ? 'live' : 'sandbox');
    return seeOther(reply, backPath(field(request, 'back')));
  });

  // A preference, not an action: the Origin check (register.ts) is enough, signed in or not.
  scope.post('/theme', async (request: FastifyRequest, reply: FastifyReply) => {
    const theme = field(request, 'theme');
    const value = theme === 'light' || theme === 'dark' ? theme : 'system';
    reply.header('Set-Cookie', cookie(services, THEME_COOKIE, value, 365 * 86_400));
    return seeOther(reply, backPath(field(request, 'back')));
  });
}
