import type { Clock } from '../../clock.ts';
import { HOUR } from '../../clock.ts';
import type { Account } from '../accounts.ts';
import { type AuditAction, type AuditBy, type AuditEvent, auditEvent } from '../audit.ts';
import { invalidParam } from '../errors.ts';
import type { Mode } from '../intents.ts';
import {
  type EndpointChanges,
  type EndpointPolicy,
  type EndpointStore,
  endpointMissing,
  loopbackAllowed,
  normaliseEnabledEvents,
  retrieveWebhookEndpoint,
  type WebhookEndpoint,
} from './endpoints.ts';
import { newSigningSecret } from './signing.ts';
import { checkEndpointUrl } from './url-policy.ts';

export interface UpdateEndpointIn {
  url?: string;
  enabled_events?: string[];
  description?: string | null;
  enabled?: boolean;
  mode?: Mode;
}

export async function updateWebhookEndpoint(
  store: EndpointStore,
  clock: Clock,
  policy: EndpointPolicy,
  account: Account,
  id: string,
  input: UpdateEndpointIn,
): Promise<WebhookEndpoint> {
  const current = await retrieveWebhookEndpoint(store, account, id);
  if (input.mode !== undefined && input.mode !== current.mode) {
    throw invalidParam('mode', 'mode is fixed at creation; create another endpoint for the other mode.');
  }
  const changes: EndpointChanges = { updatedAt: clock.now() };
  if (input.url !== undefined)
    changes.url = checkEndpointUrl(input.url, current.mode, loopbackAllowed(policy, current.mode));
  if (input.enabled_events !== undefined) changes.enabledEvents = normaliseEnabledEvents(input.enabled_events);
  if (input.description !== undefined) changes.description = input.description || null;
  if (input.enabled === true && !current.enabled) {
    // A fresh start: the 3-day failure clock of a disabled endpoint begins again.
    Object.assign(changes, { enabled: true, disabledReason: null, failingSince: null });
  } else if (input.enabled === false && current.enabled) {
    Object.assign(changes, { enabled: false, disabledReason: 'requested' });
  }
  const updated = await store.update(account.id, id, changes);
  if (!updated) throw endpointMissing(id);
  return updated;
}

export async function deleteWebhookEndpoint(
  store: EndpointStore,
  account: Account,
  id: string,
  /** Who deletes it, and when: the `webhook_endpoint.deleted` audit event commits with the deletion. */
  audited?: { by: AuditBy; clock: Clock },
): Promise<void> {
  const audit =
    audited && endpointAudit(audited.clock.now(), account, 'webhook_endpoint.deleted', audited.by, { endpoint: id });
  if (!(await store.delete(account.id, id, audit))) throw endpointMissing(id);
}

/** A roll can keep the old secret signing for up to a week, as `obolus keys roll` does for keys. */
export const MAX_SECRET_GRACE_HOURS = 24 * 7;

/**
 * Issues a new signing secret. During `graceHours` every message carries a signature by the
 * new and by the old secret, so receivers can switch whenever they deploy; 0 ends the old
 * one at once (a leaked secret). Only one previous secret is kept: rolling again ends it.
 */
export async function rollEndpointSecret(
  store: EndpointStore,
  clock: Clock,
  account: Account,
  id: string,
  graceHours: number,
  /** Who rolls it: the `webhook_secret.rolled` audit event commits with the new secret. */
  by?: AuditBy,
): Promise<WebhookEndpoint> {
  const current = await retrieveWebhookEndpoint(store, account, id);
  const now = clock.now();
  const keepPrevious = graceHours > 0;
  const audit =
    by && endpointAudit(now, account, 'webhook_secret.rolled', by, { endpoint: id, grace_hours: graceHours });
  const rolled = await store.update(
    account.id,
    id,
    {
      secret: newSigningSecret(),
      previousSecret: keepPrevious ? current.secret : null,
      previousSecretExpiresAt: keepPrevious ? now + graceHours * HOUR : null,
      updatedAt: now,
    },
    audit,
  );
  if (!rolled) throw endpointMissing(id);
  return rolled;
}

function endpointAudit(
  now: number,
  account: Account,
  action: AuditAction,
  by: AuditBy,
  detail: Record<string, string | number>,
): AuditEvent {
  return auditEvent(now, { accountId: account.id, action, actor: by.actor, clientIp: by.clientIp ?? null, detail });
}
