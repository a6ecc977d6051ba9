import { type AccountId, timeOrderedBase62 } from '../ids.ts';
import type { Mode } from './intent-model.ts';

/** The webhook catalogue (docs/webhooks.md). */
export const EVENT_TYPES = [
  'payment_intent.created',
  'payment_intent.processing',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.expired',
  'payment_intent.canceled',
  'payment_intent.amount_capturable_updated',
  'transaction.created',
  'transaction.updated',
  'refund.created',
  'refund.updated',
  'dispute.created',
  'dispute.closed',
  // An attempt of unknown outcome the acquirer could not settle in time: an operator should look (docs/live.md).
  'payment_attempt.requires_review',
  // A webhook endpoint failed for 3 days and was disabled (docs/webhooks.md).
  'webhook_endpoint.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event about to be written, in the same database transaction as the change it reports. */
export interface EventDraft {
  type: EventType;
  accountId: AccountId;
  mode: Mode;
  objectType: 'payment_intent' | 'transaction' | 'refund' | 'dispute' | 'webhook_endpoint';
  objectId: string;
  /** The object as the API shows it, after the change. */
  object: unknown;
}

export interface StoredEvent {
  id: string;
  accountId: AccountId;
  type: EventType;
  mode: Mode;
  objectType: string;
  objectId: string;
  /** 1, 2, 3 … per object: receivers order the events of one object by it. */
  objectSeq: number;
  object: unknown;
  createdAt: number;
}

export const newEventId = (nowMs: number) => `evt_${timeOrderedBase62(nowMs, 24)}`;

/** The event body delivered by webhooks and answered by the events API. */
export function eventView(event: StoredEvent) {
  return {
    id: event.id,
    object: 'event' as const,
    type: event.type,
    created: event.createdAt / 1000,
    mode: event.mode,
    sequence: event.objectSeq,
    data: { object: event.object },
  };
}
