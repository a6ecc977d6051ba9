import type { Clock } from '../../clock.ts';
import type { AccountId } from '../../ids.ts';
import type { StoredEvent } from '../events.ts';
import type { Delivery } from './deliveries.ts';
import { newDeliveryId } from './deliveries.ts';
import { subscribes, type WebhookEndpoint } from './endpoints.ts';

/** What the fan-out needs from the store: the outbox's unfanned events and the endpoints. */
export interface FanoutStore {
  /** Leases up to `limit` events not fanned out yet, oldest first; safe with any number of processes. */
  claimUnfannedAcrossAccounts(now: number, leaseMs: number, limit: number): Promise<StoredEvent[]>;
  enabledEndpoints(accountIds: AccountId[]): Promise<WebhookEndpoint[]>;
  /**
   * Inserts the deliveries and marks the events fanned out, in one transaction. A delivery
   * that exists already (another process whose lease ran out got there first) is skipped.
   */
  commitFanout(eventIds: string[], deliveries: Delivery[], now: number): Promise<void>;
}

/** An endpoint gets the events of its account and mode, of the types it chose, from its creation on. */
export function receives(endpoint: WebhookEndpoint, event: StoredEvent): boolean {
  return (
    endpoint.enabled &&
    endpoint.accountId === event.accountId &&
    endpoint.mode === event.mode &&
    endpoint.createdAt <= event.createdAt &&
    subscribes(endpoint, event.type)
  );
}

/**
 * Turns new outbox events into one delivery per matching endpoint. Events are leased
 * before and marked after, in the transaction that inserts their deliveries, so an event
 * is never lost between two dispatchers, and a crash only delays it until the lease ends.
 */
export async function fanOutEvents(
  store: FanoutStore,
  clock: Clock,
  leaseMs: number,
  limit: number,
): Promise<{ events: number; deliveries: number }> {
  const now = clock.now();
  const events = await store.claimUnfannedAcrossAccounts(now, leaseMs, limit);
  if (events.length === 0) return { events: 0, deliveries: 0 };
  const endpoints = await store.enabledEndpoints([...new Set(events.map((e) => e.accountId))]);
  const deliveries: Delivery[] = [];
  for (const event of events) {
    for (const endpoint of endpoints) {
      if (!receives(endpoint, event)) continue;
      deliveries.push({
        id: newDeliveryId(),
        accountId: event.accountId,
        endpointId: endpoint.id,
        eventId: event.id,
        origin: 'fanout',
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        firstAttemptedAt: null,
        createdAt: now,
      });
    }
  }
  await store.commitFanout(
    events.map((e) => e.id),
    deliveries,
    now,
  );
  return { events: events.length, deliveries: deliveries.length };
}
