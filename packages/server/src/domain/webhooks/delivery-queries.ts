import type { Clock } from '../../clock.ts';
import type { AccountId } from '../../ids.ts';
import type { Account } from '../accounts.ts';
import { ApiError } from '../errors.ts';
import type { StoredEvent } from '../events.ts';
import type { Page } from '../intents.ts';
import { type Attempt, type Delivery, newDeliveryId } from './deliveries.ts';
import { type EndpointStore, retrieveWebhookEndpoint } from './endpoints.ts';

export interface AttemptFilter {
  eventId?: string;
}

/** What resending and the attempt log need from the store. */
export interface DeliveryLog {
  insertDelivery(delivery: Delivery): Promise<void>;
  findAttempt(accountId: AccountId, endpointId: string, id: string): Promise<Attempt | undefined>;
  /** Newest first. */
  listAttempts(
    accountId: AccountId,
    endpointId: string,
    limit: number,
    filter: AttemptFilter,
    after?: Attempt,
  ): Promise<Page<Attempt>>;
}

export interface EventLookup {
  find(accountId: AccountId, id: string): Promise<StoredEvent | undefined>;
}

/**
 * Delivers an event to an endpoint once more, as a new delivery with the full retry
 * schedule. It carries the same webhook-id, so a receiver that already handled it can skip it.
 */
export async function resendEvent(
  stores: { endpoints: EndpointStore; events: EventLookup; log: DeliveryLog },
  clock: Clock,
  account: Account,
  endpointId: string,
  eventId: string,
): Promise<Delivery> {
  const endpoint = await retrieveWebhookEndpoint(stores.endpoints, account, endpointId);
  const event = await stores.events.find(account.id, eventId);
  if (!event) throw new ApiError('resource_missing', `No such event: '${eventId}'`, 'event_id');
  if (event.mode !== endpoint.mode) {
    throw new ApiError(
      'mode_mismatch',
      `The event is a ${event.mode} event and the endpoint receives ${endpoint.mode} events only.`,
      'event_id',
    );
  }
  if (!endpoint.enabled) {
    throw new ApiError('endpoint_disabled', 'The webhook endpoint is disabled; enable it first.', 'id');
  }
  const now = clock.now();
  const delivery: Delivery = {
    id: newDeliveryId(),
    accountId: account.id,
    endpointId: endpoint.id,
    eventId: event.id,
    origin: 'resend',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    firstAttemptedAt: null,
    createdAt: now,
  };
  await stores.log.insertDelivery(delivery);
  return delivery;
}

export async function listEndpointAttempts(
  stores: { endpoints: EndpointStore; log: DeliveryLog },
  account: Account,
  endpointId: string,
  options: { limit: number; startingAfter?: string; eventId?: string },
): Promise<Page<Attempt>> {
  const endpoint = await retrieveWebhookEndpoint(stores.endpoints, account, endpointId);
  let after: Attempt | undefined;
  if (options.startingAfter !== undefined) {
    after = await stores.log.findAttempt(account.id, endpoint.id, options.startingAfter);
    if (!after) {
      throw new ApiError('resource_missing', `No such attempt: '${options.startingAfter}'`, 'starting_after');
    }
  }
  const filter = options.eventId === undefined ? {} : { eventId: options.eventId };
  return stores.log.listAttempts(account.id, endpoint.id, options.limit, filter, after);
}
