import type { Clock } from '../../clock.ts';
import { type AccountId, randomBase62 } from '../../ids.ts';
import type { Account } from '../accounts.ts';
import { type AuditBy, type AuditEvent, auditEvent } from '../audit.ts';
import { ApiError, invalidParam } from '../errors.ts';
import { EVENT_TYPES } from '../events.ts';
import type { Mode, Page } from '../intents.ts';
import { newSigningSecret } from './signing.ts';
import { checkEndpointUrl } from './url-policy.ts';

/** Why an endpoint receives nothing: the merchant said so, or it failed for 3 days. */
export type DisabledReason = 'requested' | 'failing';

/** Event types an endpoint may subscribe to, and `*` for all of them (present and future). */
export const SUBSCRIBABLE = ['*', ...EVENT_TYPES] as const;
export type Subscribable = (typeof SUBSCRIBABLE)[number];

export interface WebhookEndpoint {
  /** we_… */
  id: string;
  accountId: AccountId;
  url: string;
  /** Receives the events of this mode only; fixed at creation. Live endpoints need https. */
  mode: Mode;
  description: string | null;
  enabledEvents: Subscribable[];
  enabled: boolean;
  disabledReason: DisabledReason | null;
  /** whsec_…: the secret that signs now. */
  secret: string;
  /** The secret before the last roll, still signing until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  /** First failed attempt with no success since; null while healthy. */
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface EndpointChanges {
  url?: string;
  enabledEvents?: string[];
  description?: string | null;
  enabled?: boolean;
  disabledReason?: DisabledReason | null;
  failingSince?: number | null;
  secret?: string;
  previousSecret?: string | null;
  previousSecretExpiresAt?: number | null;
  updatedAt: number;
}

/** What the endpoint use cases need from the store. Every lookup is scoped to the account. */
export interface EndpointStore {
  /** False, and nothing stored, when the account has `maxPerAccount` endpoints already. */
  /** With `audit`, that event is written in the same database transaction (decision 0205). */
  insert(endpoint: WebhookEndpoint, maxPerAccount: number, audit?: AuditEvent): Promise<boolean>;
  find(accountId: AccountId, id: string): Promise<WebhookEndpoint | undefined>;
  /** Newest first; `after` is an endpoint of the same account the page starts after. */
  /** Newest first; only `mode`'s when given (the dashboard's sandbox / live switch). */
  list(accountId: AccountId, limit: number, after?: WebhookEndpoint, mode?: Mode): Promise<Page<WebhookEndpoint>>;
  /** With `audit`, that event is written with the change, in one database transaction. */
  update(
    accountId: AccountId,
    id: string,
    changes: EndpointChanges,
    audit?: AuditEvent,
  ): Promise<WebhookEndpoint | undefined>;
  /** Deletes the endpoint with its deliveries and their attempts (and writes `audit` with them). */
  delete(accountId: AccountId, id: string, audit?: AuditEvent): Promise<boolean>;
}

export interface CreateEndpointIn {
  url: string;
  enabled_events: string[];
  description?: string | null;
  enabled?: boolean;
  mode?: Mode;
}

export interface EndpointPolicy {
  /** OBOLUS_WEBHOOKS_ALLOW_LOOPBACK: development and tests only. */
  allowLoopback: boolean;
  /** Loopback for sandbox endpoints only: a developer machine (decision 0090). */
  allowSandboxLoopback: boolean;
}

/** Whether an endpoint of this mode may target 127.0.0.0/8, ::1 and localhost. */
export const loopbackAllowed = (policy: EndpointPolicy, mode: Mode): boolean =>
  policy.allowLoopback || (mode === 'sandbox' && policy.allowSandboxLoopback);

export const newEndpointId = () => `we_${randomBase62(24)}`;

/** Endpoints one account may have (decision 0072): each one is a share of the webhook senders. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 16;

/** The list as stored: duplicates dropped, and `*` alone when it is there (it means everything). */
export function normaliseEnabledEvents(events: string[]): Subscribable[] {
  for (const [i, type] of events.entries()) {
    if (!(SUBSCRIBABLE as readonly string[]).includes(type)) {
      throw invalidParam(`enabled_events[${i}]`, `enabled_events[${i}] must be one of: ${SUBSCRIBABLE.join(', ')}.`);
    }
  }
  return events.includes('*') ? ['*'] : [...new Set(events as Subscribable[])];
}

export function subscribes(endpoint: Pick<WebhookEndpoint, 'enabledEvents'>, type: string): boolean {
  return endpoint.enabledEvents.includes('*') || (endpoint.enabledEvents as readonly string[]).includes(type);
}

export async function createWebhookEndpoint(
  store: EndpointStore,
  clock: Clock,
  policy: EndpointPolicy,
  account: Account,
  input: CreateEndpointIn,
  /** Who creates it: the `webhook_endpoint.created` audit event commits with the endpoint. */
  by?: AuditBy,
): Promise<WebhookEndpoint> {
  const mode = input.mode ?? 'live';
  const url = checkEndpointUrl(input.url, mode, loopbackAllowed(policy, mode));
  const enabledEvents = normaliseEnabledEvents(input.enabled_events);
  const now = clock.now();
  const enabled = input.enabled ?? true;
  const endpoint: WebhookEndpoint = {
    id: newEndpointId(),
    accountId: account.id,
    url,
    mode,
    description: input.description || null,
    enabledEvents,
    enabled,
    disabledReason: enabled ? null : 'requested',
    secret: newSigningSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  const audit =
    by &&
    auditEvent(now, {
      accountId: account.id,
      action: 'webhook_endpoint.created',
      actor: by.actor,
      clientIp: by.clientIp ?? null,
      detail: { endpoint: endpoint.id, url },
    });
  if (!(await store.insert(endpoint, MAX_ENDPOINTS_PER_ACCOUNT, audit))) {
    throw new ApiError(
      'endpoint_limit_reached',
      `An account can have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one you no longer use, or subscribe an existing one to more events.`,
    );
  }
  return endpoint;
}

export const endpointMissing = (id: string, param = 'id') =>
  new ApiError('resource_missing', `No such webhook endpoint: '${id}'`, param);

export async function retrieveWebhookEndpoint(
  store: EndpointStore,
  account: Account,
  id: string,
): Promise<WebhookEndpoint> {
  const endpoint = await store.find(account.id, id);
  if (!endpoint) throw endpointMissing(id);
  return endpoint;
}

export async function listWebhookEndpoints(
  store: EndpointStore,
  account: Account,
  limit: number,
  startingAfter?: string,
  mode?: Mode,
): Promise<Page<WebhookEndpoint>> {
  let after: WebhookEndpoint | undefined;
  if (startingAfter !== undefined) {
    after = await store.find(account.id, startingAfter);
    if (!after) throw endpointMissing(startingAfter, 'starting_after');
  }
  return store.list(account.id, limit, after, mode);
}

/** The secrets that sign a message sent at `now`: the current one, and the previous during its grace. */
export function signingSecrets(endpoint: WebhookEndpoint, now: number): string[] {
  const previousValid =
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt > now;
  return previousValid ? [endpoint.secret, endpoint.previousSecret as string] : [endpoint.secret];
}
