import { Type } from 'typebox';
import { EVENT_TYPES } from '../../../domain/events.ts';
import type { Attempt, Delivery } from '../../../domain/webhooks/deliveries.ts';
import { nullable, unixSecondsOrNull } from './schema-parts.ts';

export const DeliveryOut = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_delivery'),
  webhook_endpoint: Type.String(),
  event: Type.String(),
  origin: Type.Enum(['fanout', 'resend'], { description: 'fanout (the event happened) or resend' }),
  status: Type.Enum(['pending', 'delivered', 'failed'], {
    description: 'pending, delivered or failed (given up after 3 days)',
  }),
  attempts: Type.Integer(),
  next_attempt_at: nullable(Type.Integer({ description: 'Unix seconds' })),
  created: Type.Integer({ description: 'Unix seconds' }),
});

export const toDeliveryOut = (delivery: Delivery) => ({
  id: delivery.id,
  object: 'webhook_delivery' as const,
  webhook_endpoint: delivery.endpointId,
  event: delivery.eventId,
  origin: delivery.origin,
  status: delivery.status,
  attempts: delivery.attempts,
  next_attempt_at: unixSecondsOrNull(delivery.nextAttemptAt),
  created: unixSecondsOrNull(delivery.createdAt) as number,
});

export const AttemptOut = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_attempt'),
  webhook_endpoint: Type.String(),
  webhook_delivery: Type.String(),
  event: Type.String(),
  event_type: Type.Enum([...EVENT_TYPES]),
  url: Type.String(),
  created: Type.Number({ description: 'Unix seconds, with milliseconds as a fraction' }),
  succeeded: Type.Boolean(),
  status_code: nullable(Type.Integer()),
  latency_ms: Type.Integer(),
  response_body: nullable(Type.String({ description: 'The first 1 KB of what the receiver answered' })),
  error: nullable(Type.String()),
  next_attempt_at: nullable(Type.Integer({ description: 'Unix seconds of the retry this failure scheduled' })),
});

export const toAttemptOut = (attempt: Attempt) => ({
  id: attempt.id,
  object: 'webhook_attempt' as const,
  webhook_endpoint: attempt.endpointId,
  webhook_delivery: attempt.deliveryId,
  event: attempt.eventId,
  event_type: attempt.eventType,
  url: attempt.url,
  created: attempt.attemptedAt / 1000,
  succeeded: attempt.succeeded,
  status_code: attempt.statusCode,
  latency_ms: attempt.latencyMs,
  response_body: attempt.responseBody,
  error: attempt.error,
  next_attempt_at: unixSecondsOrNull(attempt.nextAttemptAt),
});
