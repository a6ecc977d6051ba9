import type { FastifyInstance, FastifyRequest } from 'fastify';
import { liveSecretKeys, rollSecretKey, type SecretKeyRecord } from '../../domain/accounts.ts';
import { editAllowedOrigins } from '../../domain/allowed-origins.ts';
import type { Services } from '../../services.ts';
import { field, Refusal, requireActive, type Signed, seeOther } from './context.ts';
import { when } from './format.ts';
import { createForm, page, postForm } from './layout.ts';
import { html, type Markup } from './markup.ts';
import { getPage, postAction, postCreate } from './routes.ts';
import { dashboardAuditBy, requireFreshPassword } from './security.ts';
import { endpointsSection } from './webhooks.ts';

/** The grace periods a merchant can choose when rolling its secret key, in hours. */
const GRACE_CHOICES = [
  { hours: 0, label: 'Now (the old key stops at once)' },
  { hours: 1, label: 'In 1 hour' },
  { hours: 24, label: 'In 24 hours' },
  { hours: 24 * 7, label: 'In 7 days' },
] as const;

/** Which key a roll form was made for: a form sent twice finds another key current. */
const keyStamp = (key: SecretKeyRecord) => `${key.createdAt}-${key.last4}`;

function originsSection(signed: Signed): Markup {
  const origins = signed.account.allowedOrigins;
  const rows = origins.map(
    (origin) =>
      html`<li><code>${origin}</code>${postForm(signed, '/dashboard/developer/origins/remove', html`<input type="hidden" name="origin" value="${origin}"><button class="secondary" type="submit" aria-label="Remove ${origin}">Remove</button>`)}</li>`,
  );
  return html`<section class="panel" aria-labelledby="origins"><h2 id="origins">Allowed origins of the widget</h2>
<p class="muted">Pages that may embed your checkout widget. With none, any page may.</p>
${rows.length ? html`<ul class="origins">${rows}</ul>` : html`<p>None: any page may embed the widget.</p>`}
${createForm(signed, '/dashboard/developer/origins', html`<label class="wide">Origin<input name="origin" required placeholder="https://shop.example" maxlength="300"></label><button type="submit">Add origin</button>`, 'fields')}</section>`;
}

/** Client key, masked secret keys, key roll, allowed origins, webhook endpoints. */
export function registerDeveloperPages(scope: FastifyInstance, services: Services): void {
  const render = async (signed: Signed, shownOnce: Markup = html``, done?: string) => {
    const keys = await liveSecretKeys(services.repos.accounts, services.clock, signed.account);
    const keyRows = keys.map(
      (k) =>
        html`<li><code>sk_…${k.last4}</code> created ${when(k.createdAt)}${k.expiresAt === null ? ' (current)' : html` · stops working ${when(k.expiresAt)}`}</li>`,
    );
    const current = keys.find((k) => k.expiresAt === null);
    const grace = GRACE_CHOICES.map((g) => html`<option value="${g.hours}">${g.label}</option>`);
    const body = html`${shownOnce}${done === 'endpoint-deleted' ? html`<p class="notice" role="status">Webhook endpoint deleted.</p>` : ''}<p>The API reference is at <a href="/docs">/docs</a>. Sign-ins, key rolls and other changes of this account: <a href="/dashboard/developer/security">Security history</a>.</p>
<section class="panel" aria-labelledby="keys"><h2 id="keys">API keys</h2>
<p>Client key (publishable, for the widget): <code>${signed.account.clientKey}</code></p>
<p>Secret keys (for your server; shown in full only once):</p><ul>${keyRows}</ul>
${postForm(signed, '/dashboard/developer/roll', html`<input type="hidden" name="current" value="${current ? keyStamp(current) : ''}"><label>The current key stops working<select name="grace">${grace}</select></label><button class="danger" type="submit">Roll secret key</button>`, 'fields')}</section>
${originsSection(signed)}${await endpointsSection(services, signed)}`;
    return page(signed, { title: 'Developer', section: '/dashboard/developer', body });
  };

  getPage(scope, '/developer', async (signed, request) => render(signed, html``, request.query.done));

  postAction(scope, '/developer/roll', async (signed, request) => {
    requireActive(signed);
    requireFreshPassword(services, signed, '/dashboard/developer');
    // A reload re-sends this form: it must not roll again (and kill the key just shown).
    const keys = await liveSecretKeys(services.repos.accounts, services.clock, signed.account);
    const current = keys.find((k) => k.expiresAt === null);
    if (!current || field(request, 'current') !== keyStamp(current)) {
      throw new Refusal(
        409,
        'This key was already rolled (was the form sent twice?). The new key was shown once; if you did not copy it, roll again from the Developer page.',
      );
    }
    const hours = GRACE_CHOICES.find((g) => String(g.hours) === field(request, 'grace'))?.hours ?? 0;
    // Through the process's credential cache: the old key is refused here from the next request.
    // Its audit event is written in the key's own transaction (decision 0205).
    const rolled = await rollSecretKey(
      services.credentials,
      services.clock,
      signed.account.id,
      hours,
      dashboardAuditBy(signed, request),
    );
    const until = hours === 0 ? 'has stopped working' : `works until ${when(rolled.previousKeysExpireAt)}`;
    return render(
      signed,
      html`<div class="notice" role="status"><p><strong>Your new secret key</strong>, shown this once: copy it now.</p><span class="copy-field"><code class="secret" data-copy="new secret key" data-copy-label="Copy key">${rolled.secretKey}</code></span><p>The previous key ${until}.</p></div>`,
    );
  });

  // Against the list as it is when written, not as this request read it: two origins added
  // at once (two tabs, two processes) are both kept.
  // Its audit event commits with the list (decision 0205).
  const editOrigins = async (
    signed: Signed,
    request: FastifyRequest,
    detail: Record<string, string>,
    edit: (current: readonly string[]) => string[],
  ) => {
    const stores = { origins: services.repos.allowedOrigins, accounts: services.repos.accounts };
    const audited = { by: dashboardAuditBy(signed, request), now: services.clock.now(), detail };
    if (!(await editAllowedOrigins(stores, signed.account.id, edit, audited))) {
      throw new Refusal(409, 'The allowed origins kept changing while this was saved. Reload the page and try again.');
    }
  };

  postCreate(scope, services, '/developer/origins', async (signed, request) => {
    requireFreshPassword(services, signed, '/dashboard/developer');
    const added = field(request, 'origin').trim();
    await editOrigins(signed, request, { added }, (current) => [...current, added]);
    return { result: '/dashboard/developer' };
  });

  postAction(scope, '/developer/origins/remove', async (signed, request, reply) => {
    requireFreshPassword(services, signed, '/dashboard/developer');
    const gone = field(request, 'origin');
    await editOrigins(signed, request, { removed: gone }, (current) => current.filter((o) => o !== gone));
    return seeOther(reply, '/dashboard/developer');
  });
}
