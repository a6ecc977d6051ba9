import type { Clock } from '../../clock.ts';
import { crashPoint } from '../../crash-points.ts';
import { type AccountId, randomBase62 } from '../../ids.ts';
import type { EventDraft, StoredEvent } from '../events.ts';
import { eventView } from '../events.ts';
import { webhookEndpointView } from './endpoint-view.ts';
import { signingSecrets, type WebhookEndpoint } from './endpoints.ts';
import { DISABLE_AFTER_FAILING_MS, nextAttemptAt } from './retry-schedule.ts';
import { signMessage } from './signing.ts';

/** pending: waits for its next attempt; delivered: a 2xx came back; failed: 3 days of failures. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one endpoint: made by the fan-out, or by a resend. */
export interface Delivery {
  /** whd_… */
  id: string;
  accountId: AccountId;
  endpointId: string;
  eventId: string;
  origin: 'fanout' | 'resend';
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  firstAttemptedAt: number | null;
  createdAt: number;
}

/** A due delivery this process holds a lease on: nobody else attempts it until the lease ends. */
export interface ClaimedDelivery {
  delivery: Delivery;
  lockToken: string;
  endpoint: WebhookEndpoint;
  event: StoredEvent;
}

/** What one HTTP attempt gave. */
export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  /** The first 1 KB of the response body. */
  responseBody: string | null;
  error: string | null;
}

/** The port to the outside world: POSTs one signed message (workers/webhooks/transport.ts). */
export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
}

export interface Attempt extends SendResult {
  /** wha_… */
  id: string;
  accountId: AccountId;
  endpointId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  url: string;
  attemptedAt: number;
  succeeded: boolean;
  /** The retry this failure scheduled; null once delivered or given up. */
  nextAttemptAt: number | null;
}

export interface AttemptOutcome {
  attempt: Attempt;
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  firstAttemptedAt: number;
  /** On failure, the endpoint is disabled if it has been failing since before this. */
  disableIfFailingSince: number;
  /** The event that tells the merchant, written in the same transaction as the disabling. */
  disabledEvent: (endpoint: WebhookEndpoint) => EventDraft;
}

/**
 * How many deliveries may be in flight at once (decision 0072): per endpoint, so one slow
 * receiver holds few slots; per account, so one merchant's endpoints cannot hold them all.
 */
export interface SendCaps {
  perEndpoint: number;
  perAccount: number;
}

export const SEND_CAPS: SendCaps = { perEndpoint: 4, perAccount: 16 };

export interface DeliveryStore {
  /**
   * Leases up to `limit` due deliveries of enabled endpoints within `caps`, round robin across
   * accounts; safe with any number of processes.
   */
  claimDueAcrossAccounts(now: number, leaseMs: number, limit: number, caps: SendCaps): Promise<ClaimedDelivery[]>;
  /**
   * Logs the attempt, moves the delivery on and updates the endpoint's health, in one
   * transaction, only while `claim`'s lease is still ours (false otherwise).
   */
  recordAttempt(claim: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean>;
}

export const newDeliveryId = () => `whd_${randomBase62(24)}`;
export const newAttemptId = () => `wha_${randomBase62(24)}`;

/** The body a receiver gets: exactly what GET /api/v1/events/{id} answers. */
export const webhookPayload = (event: StoredEvent) => JSON.stringify(eventView(event));

const isSuccess = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** Signs and sends one claimed delivery, then records what happened. Never throws for the receiver's faults. */
export async function attemptDelivery(
  store: DeliveryStore,
  sender: WebhookSender,
  clock: Clock,
  claim: ClaimedDelivery,
): Promise<Attempt> {
  const { delivery, endpoint, event } = claim;
  const now = clock.now();
  const payload = webhookPayload(event);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Obolus-Webhooks/1',
    ...signMessage(signingSecrets(endpoint, now), event.id, now, payload),
  };
  const result = await sender.send(endpoint.url, headers, payload);
  crashPoint('during_webhook_delivery');
  const succeeded = isSuccess(result.statusCode);
  const attempts = delivery.attempts + 1;
  const firstAttemptedAt = delivery.firstAttemptedAt ?? now;
  const next = succeeded ? null : nextAttemptAt(attempts, firstAttemptedAt, now);
  const attempt: Attempt = {
    ...result,
    error: result.error ?? (succeeded ? null : `the receiver answered ${result.statusCode}, not 2xx`),
    id: newAttemptId(),
    accountId: delivery.accountId,
    endpointId: endpoint.id,
    deliveryId: delivery.id,
    eventId: event.id,
    eventType: event.type,
    url: endpoint.url,
    attemptedAt: now,
    succeeded,
    nextAttemptAt: next,
  };
  await store.recordAttempt(claim, {
    attempt,
    status: succeeded ? 'delivered' : next === null ? 'failed' : 'pending',
    nextAttemptAt: next,
    firstAttemptedAt,
    disableIfFailingSince: now - DISABLE_AFTER_FAILING_MS,
    disabledEvent: endpointDisabledEvent,
  });
  return attempt;
}

export function endpointDisabledEvent(endpoint: WebhookEndpoint): EventDraft {
  return {
    type: 'webhook_endpoint.disabled',
    accountId: endpoint.accountId,
    mode: endpoint.mode,
    objectType: 'webhook_endpoint',
    objectId: endpoint.id,
    object: webhookEndpointView(endpoint),
  };
}
