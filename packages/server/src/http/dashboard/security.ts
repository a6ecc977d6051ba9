import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuditAction, type AuditBy, type AuditEvent, actorOfSession, auditEvent } from '../../domain/audit.ts';
import { confirmPassword, endAllSessions, passwordIsFresh } from '../../domain/dashboard/sessions.ts';
import type { Services } from '../../services.ts';
import { field, Refusal, type Signed, seeOther } from './context.ts';
import { when } from './format.ts';
import { page, postForm } from './layout.ts';
import { html } from './markup.ts';
import { backPath, getPage, postAction } from './routes.ts';
import { sessionCookie } from './sign-in.ts';

export const SECURITY_PATH = '/dashboard/developer/security';

/** The password is asked again: a sensitive action of a session whose password is not fresh (decision 0204). */
export class PasswordNeeded extends Refusal {
  readonly back: string;
  constructor(back: string) {
    super(403, 'Confirm your password to continue. Then send the form again.');
    this.back = back;
  }
}

/** Before a key roll, a signing-secret roll, a new webhook endpoint or an allowed-origin change. */
export function requireFreshPassword(services: Services, signed: Signed, back: string): void {
  if (!passwordIsFresh(signed.session, services.clock.now())) throw new PasswordNeeded(back);
}

/** A signed-in merchant as the actor of an action that writes its own audit event. */
export function dashboardAuditBy(signed: Signed, request: FastifyRequest): AuditBy {
  return { actor: actorOfSession(signed.session.digest), clientIp: request.ip };
}

/** An action of a signed-in merchant, in the audit trail (after it committed). */
export async function auditDashboard(
  services: Services,
  signed: Signed,
  request: FastifyRequest,
  action: AuditAction,
  detail?: Record<string, string | number>,
): Promise<void> {
  await services.repos.audit.record(
    auditEvent(services.clock.now(), {
      accountId: signed.account.id,
      action,
      actor: actorOfSession(signed.session.digest),
      clientIp: request.ip,
      ...(detail ? { detail } : {}),
    }),
  );
}

/** The form that asks for the password again, returning to `back`. */
export function confirmPasswordForm(signed: Signed, back: string, message?: string) {
  return html`${message ? html`<p class="notice error" role="alert">${message}</p>` : ''}
<p>For your security, confirm your password before changing keys, signing secrets, webhook endpoints or allowed origins.</p>
${postForm(signed, '/dashboard/confirm-password', html`<input type="hidden" name="back" value="${back}"><input type="text" name="username" autocomplete="username" value="${signed.account.email}" hidden><label>Password<input type="password" name="password" autocomplete="current-password" required maxlength="1024"></label><button type="submit">Confirm password</button>`, 'fields')}`;
}

const LABELS: Record<string, string> = {
  'dashboard.sign_in': 'Signed in',
  'dashboard.sign_in_failed': 'Failed sign-in',
  'dashboard.locked': 'Sign-in locked after failures',
  'dashboard.sign_out': 'Signed out',
  'dashboard.password_confirmed': 'Password confirmed',
  'secret_key.rolled': 'Secret key rolled',
  'webhook_secret.rolled': 'Webhook signing secret rolled',
  'webhook_endpoint.created': 'Webhook endpoint added',
  'webhook_endpoint.deleted': 'Webhook endpoint deleted',
  'allowed_origins.changed': 'Allowed origins changed',
  'refund.created': 'Refund',
  'password.set': 'Password set',
  'sessions.ended': 'Sessions ended',
  'master_key.rotated': 'Master key rotated',
};

function historyRow(event: AuditEvent) {
  const detail = event.detail
    ? Object.entries(event.detail)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')
    : '';
  return html`<tr><td>${when(event.createdAt)}</td><td>${LABELS[event.action] ?? event.action}</td><td>${event.outcome}</td><td><code>${event.actor}</code></td><td>${event.clientNetwork ?? ''}</td><td>${detail}</td></tr>`;
}

/** Security history (the account's audit trail), Sign out everywhere, and the password confirmation. */
export function registerSecurityPages(scope: FastifyInstance, services: Services): void {
  const stores = {
    sessions: services.repos.dashboard,
    counters: services.repos.rateCounters,
    audit: services.repos.audit,
  };

  getPage(scope, '/developer/security', async (signed) => {
    const events = await services.repos.audit.list(signed.account.id, { limit: 200 });
    const body = html`<p><a href="/dashboard/developer">Back to Developer</a></p>
<section class="panel" aria-labelledby="everywhere"><h2 id="everywhere">Sessions</h2>
<p>Ends every dashboard session of this account, on every browser, this one included.</p>
${postForm(signed, '/dashboard/sign-out-everywhere', html`<button class="danger" type="submit">Sign out everywhere</button>`)}</section>
<section class="panel" aria-labelledby="history"><h2 id="history">Security history</h2>
<p class="muted">The latest 200 events of this account's audit trail; all of it with <code>npx obolus audit list ${signed.account.id}</code>.</p>
${events.length === 0 ? html`<p>Nothing yet.</p>` : html`<div class="table-wrap"><table><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Outcome</th><th scope="col">Who</th><th scope="col">Network</th><th scope="col">Details</th></tr></thead><tbody>${events.map(historyRow)}</tbody></table></div>`}</section>`;
    return page(signed, { title: 'Security history', section: '/dashboard/developer', body });
  });

  postAction(scope, '/sign-out-everywhere', async (signed, request, reply) => {
    await endAllSessions(services.repos.dashboard, services.clock, {
      accountId: signed.account.id,
      actor: actorOfSession(signed.session.digest),
      clientIp: request.ip,
    });
    reply.header('Set-Cookie', sessionCookie(services, '', 0));
    return seeOther(reply, '/dashboard');
  });

  // The same form by itself (a link, or a browser that reloads the refusal).
  getPage(scope, '/confirm-password', async (signed, request) =>
    page(signed, {
      title: 'Confirm your password',
      section: '',
      body: confirmPasswordForm(signed, backPath(request.query.back ?? '')),
    }),
  );

  postAction(scope, '/confirm-password', async (signed, request: FastifyRequest, reply) => {
    const back = backPath(field(request, 'back'));
    const checked = await confirmPassword(stores, services.clock, {
      session: signed.session,
      email: signed.account.email,
      password: field(request, 'password'),
      clientIp: request.ip,
    });
    if (checked.ok) return seeOther(reply, back);
    const message =
      checked.reason === 'rate_limited'
        ? `Too many failed attempts. Try again in ${Math.ceil(checked.retryAfterMs / 60_000)} minutes.`
        : 'That password is not right.';
    return reply
      .code(checked.reason === 'rate_limited' ? 429 : 403)
      .type('text/html; charset=utf-8')
      .send(
        page(signed, { title: 'Confirm your password', section: '', body: confirmPasswordForm(signed, back, message) }),
      );
  });
}
