import type { FastifyInstance } from 'fastify';
import { webhookPolicy } from '../../config.ts';
import type { Attempt } from '../../domain/webhooks/deliveries.ts';
import { listEndpointAttempts, resendEvent } from '../../domain/webhooks/delivery-queries.ts';
import {
  deleteWebhookEndpoint,
  rollEndpointSecret,
  updateWebhookEndpoint,
} from '../../domain/webhooks/endpoint-changes.ts';
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
  retrieveWebhookEndpoint,
  type WebhookEndpoint,
} from '../../domain/webhooks/endpoints.ts';
import { sha256Hex } from '../../ids.ts';
import type { Services } from '../../services.ts';
import { field, Refusal, type Signed, seeOther } from './context.ts';
import { eventJson } from './event-json.ts';
import { when } from './format.ts';
import { createForm, page, postForm } from './layout.ts';
import { html, type Markup } from './markup.ts';
import { getPage, postAction, postCreate } from './routes.ts';
import { dashboardAuditBy, requireFreshPassword } from './security.ts';

type Id = { id: string };

/**
 * Which signing secret a roll form was made for: a form sent again finds another secret
 * current. A digest of the secret, not its time alone (two rolls in one millisecond).
 */
const secretStamp = (endpoint: WebhookEndpoint) => `${endpoint.updatedAt}-${sha256Hex(endpoint.secret).slice(0, 16)}`;

const secretOnce = (endpoint: WebhookEndpoint) =>
  html`<div class="notice" role="status"><p><strong>Signing secret</strong> of this endpoint, shown this once: copy it now.</p><span class="copy-field"><code class="secret" data-copy="signing secret" data-copy-label="Copy secret">${endpoint.secret}</code></span></div>`;

/** The Developer page's list of webhook endpoints and the form that adds one. */
export async function endpointsSection(services: Services, signed: Signed): Promise<Markup> {
  const list = await listWebhookEndpoints(
    services.repos.webhookEndpoints,
    signed.account,
    100,
    undefined,
    signed.session.mode,
  );
  const rows = list.data.map(
    (e) =>
      html`<tr><td class="mono"><a href="/dashboard/developer/webhooks/${e.id}">${e.url}</a></td><td>${e.mode}</td><td>${e.enabled ? 'enabled' : `disabled (${e.disabledReason ?? ''})`}</td><td>${e.enabledEvents.join(', ')}</td></tr>`,
  );
  return html`<section class="panel" aria-labelledby="webhooks"><h2 id="webhooks">Webhook endpoints</h2>
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Webhook endpoints"><table><thead><tr><th>URL</th><th>Mode</th><th>State</th><th>Events</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No endpoints yet.</p>`}
${createForm(signed, '/dashboard/developer/webhooks', html`<label class="wide">Endpoint URL<input name="url" type="url" required maxlength="2048" size="34" placeholder="https://shop.example/webhooks"></label><label>Description<input name="description" maxlength="100"></label><button type="submit">Add endpoint (${signed.session.mode}, every event)</button>`, 'fields')}</section>`;
}

/** One attempt's request (the signed POST: its event's JSON) and the receiver's response, shown on demand. */
function exchange(a: Attempt, body: string | undefined): Markup {
  const answer = a.statusCode === null ? `no answer: ${a.error ?? 'unknown error'}` : `HTTP ${a.statusCode}`;
  return html`<details><summary>Request and response</summary>
<h3>Request</h3><pre tabindex="0">POST ${a.url}
content-type: application/json
webhook-id: ${a.eventId}

${body ?? '(the event is no longer kept)'}</pre>
<h3>Response</h3><pre tabindex="0">${answer} · ${a.latencyMs} ms${a.responseBody ? `\n\n${a.responseBody}` : ''}</pre></details>`;
}

async function endpointPage(services: Services, signed: Signed, id: string, before: Markup = html``) {
  const stores = { endpoints: services.repos.webhookEndpoints, log: services.repos.webhookAttempts };
  const endpoint = await retrieveWebhookEndpoint(stores.endpoints, signed.account, id);
  const attempts = await listEndpointAttempts(stores, signed.account, id, { limit: 50 });
  const events = new Map(
    (
      await Promise.all(
        [...new Set(attempts.data.map((a) => a.eventId))].map((eventId) =>
          services.repos.eventFeed.find(signed.account.id, eventId),
        ),
      )
    ).flatMap((e) => (e ? [[e.id, eventJson(e)] as const] : [])),
  );
  const rows = attempts.data.map(
    (a) =>
      html`<tr class="attempt"><td>${when(a.attemptedAt)}</td><td>${a.eventType}</td><td class="${a.succeeded ? 'status-ok' : 'status-bad'}">${a.statusCode ?? a.error ?? 'no answer'}</td><td class="num hide-narrow">${a.latencyMs ?? ''}</td>
<td>${createForm(signed, `/dashboard/developer/webhooks/${id}/resend`, html`<input type="hidden" name="event_id" value="${a.eventId}"><button class="secondary" type="submit" aria-label="Resend ${a.eventType} ${a.eventId}">Resend</button>`)}</td></tr>
<tr class="exchange"><td colspan="5">${exchange(a, events.get(a.eventId))}</td></tr>`,
  );
  const state = endpoint.enabled
    ? html`<strong class="status-ok">Enabled</strong>`
    : html`<strong class="status-bad">Disabled</strong> <span class="muted">(${endpoint.disabledReason === 'requested' ? 'by you' : (endpoint.disabledReason ?? '')})</span>`;
  const body = html`${before}<p class="mono">${endpoint.url}</p>
<section class="panel actions" aria-label="Endpoint"><p>${state} · ${endpoint.mode} · events: ${endpoint.enabledEvents.join(', ')}</p>
${postForm(signed, `/dashboard/developer/webhooks/${id}/enabled`, html`<input type="hidden" name="enabled" value="${endpoint.enabled ? 'false' : 'true'}"><button class="secondary" type="submit">${endpoint.enabled ? 'Disable endpoint' : 'Enable endpoint'}</button>`)}
${postForm(signed, `/dashboard/developer/webhooks/${id}/delete`, html`<label class="check"><input type="checkbox" name="confirm" value="yes" required> Delete for good</label><button class="danger" type="submit">Delete endpoint</button>`, 'fields')}</section>
${postForm(signed, `/dashboard/developer/webhooks/${id}/roll`, html`<input type="hidden" name="secret_of" value="${secretStamp(endpoint)}"><label>The current secret stops signing<select name="grace"><option value="0">Now</option><option value="24">In 24 hours</option></select></label><button class="danger" type="submit">Roll signing secret</button>`, 'panel fields')}
<h2>Delivery attempts</h2>${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Delivery attempts"><table><thead><tr><th>When</th><th>Event</th><th>Answer</th><th class="num hide-narrow">ms</th><th>Action</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No attempts yet.</p>`}
<p><a href="/dashboard/developer">Back to Developer</a></p>`;
  return page(signed, { title: 'Webhook endpoint', section: '/dashboard/developer', body });
}

/** Webhook endpoints: add (secret shown once), attempts, resend, signing-secret roll. */
export function registerWebhookPages(scope: FastifyInstance, services: Services): void {
  const policy = webhookPolicy(services.config);
  postCreate(scope, services, '/developer/webhooks', async (signed, request) => {
    requireFreshPassword(services, signed, '/dashboard/developer');
    const description = field(request, 'description').trim().slice(0, 100);
    const endpoint = await createWebhookEndpoint(
      services.repos.webhookEndpoints,
      services.clock,
      policy,
      signed.account,
      {
        url: field(request, 'url').trim(),
        enabled_events: ['*'],
        mode: signed.session.mode,
        ...(description ? { description } : {}),
      },
      dashboardAuditBy(signed, request),
    );
    // The secret is in this answer only; a repeat of the form is sent to the endpoint's page.
    return {
      result: `/dashboard/developer/webhooks/${endpoint.id}`,
      page: await endpointPage(services, signed, endpoint.id, secretOnce(endpoint)),
    };
  });

  getPage<Id>(scope, '/developer/webhooks/:id', async (signed, request) =>
    endpointPage(services, signed, request.params.id),
  );

  postCreate<Id>(scope, services, '/developer/webhooks/:id/resend', async (signed, request) => {
    await resendEvent(
      {
        endpoints: services.repos.webhookEndpoints,
        events: services.repos.eventFeed,
        log: services.repos.webhookAttempts,
      },
      services.clock,
      signed.account,
      request.params.id,
      field(request, 'event_id'),
    );
    return { result: `/dashboard/developer/webhooks/${encodeURIComponent(request.params.id)}` };
  });

  postAction<Id>(scope, '/developer/webhooks/:id/enabled', async (signed, request, reply) => {
    await updateWebhookEndpoint(
      services.repos.webhookEndpoints,
      services.clock,
      policy,
      signed.account,
      request.params.id,
      {
        enabled: field(request, 'enabled') === 'true',
      },
    );
    return seeOther(reply, `/dashboard/developer/webhooks/${encodeURIComponent(request.params.id)}`);
  });

  postAction<Id>(scope, '/developer/webhooks/:id/delete', async (signed, request, reply) => {
    if (field(request, 'confirm') !== 'yes') {
      throw new Refusal(400, 'Tick "Delete for good" to delete the endpoint.');
    }
    requireFreshPassword(services, signed, `/dashboard/developer/webhooks/${encodeURIComponent(request.params.id)}`);
    await deleteWebhookEndpoint(services.repos.webhookEndpoints, signed.account, request.params.id, {
      by: dashboardAuditBy(signed, request),
      clock: services.clock,
    });
    return seeOther(reply, '/dashboard/developer?done=endpoint-deleted');
  });

  postAction<Id>(scope, '/developer/webhooks/:id/roll', async (signed, request) => {
    requireFreshPassword(services, signed, `/dashboard/developer/webhooks/${encodeURIComponent(request.params.id)}`);
    const hours = field(request, 'grace') === '24' ? 24 : 0;
    // A reload re-sends this form: it must not roll again (and end the secret just shown).
    const current = await retrieveWebhookEndpoint(services.repos.webhookEndpoints, signed.account, request.params.id);
    if (field(request, 'secret_of') !== secretStamp(current)) {
      throw new Refusal(
        409,
        'This endpoint changed since the page was shown (was the form sent twice?). Open it again and roll from there.',
      );
    }
    const endpoint = await rollEndpointSecret(
      services.repos.webhookEndpoints,
      services.clock,
      signed.account,
      request.params.id,
      hours,
      dashboardAuditBy(signed, request),
    );
    return endpointPage(services, signed, endpoint.id, secretOnce(endpoint));
  });
}
