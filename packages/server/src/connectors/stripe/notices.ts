import type Stripe from 'stripe';
import { NoticeRejected, type ProcessorNotice } from '../../domain/payments/ports.ts';
import { outcomeOfIntent } from './outcomes.ts';

/** Stripe's own default, and the issue's: an event signed longer ago than this is refused. */
const TOLERANCE_SECONDS = 300;

/**
 * Verifies a Stripe webhook (Stripe-Signature over the raw body, with the SDK) and reads
 * the events Obolus acts on. Anything else is acknowledged and ignored.
 */
export function readStripeNotice(stripe: Stripe, rawBody: Buffer, signature: string, secret: string): ProcessorNotice {
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(rawBody, signature, secret, TOLERANCE_SECONDS);
  } catch {
    throw new NoticeRejected('The Stripe-Signature of this event is not valid or is too old.');
  }
  const eventId = event.id;
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'payment_intent.canceled': {
      const pi = event.data.object;
      const attemptId = pi.metadata?.obolus_attempt ?? '';
      if (!attemptId) return { kind: 'ignored', eventId };
      return { kind: 'payment', eventId, attempt: { attemptId, paymentRef: pi.id }, outcome: outcomeOfIntent(pi) };
    }
    case 'charge.dispute.created': {
      const paymentRef = idOf(event.data.object.payment_intent);
      return paymentRef ? { kind: 'dispute', eventId, paymentRef } : { kind: 'ignored', eventId };
    }
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
      return refundNotice(eventId, event.data.object);
    case 'charge.refunded': {
      // The charge's refunds are not listed in it (API 2022-11-15 and later): refund.* events carry each one.
      return { kind: 'ignored', eventId };
    }
    default:
      return { kind: 'ignored', eventId };
  }
}

function refundNotice(eventId: string, refund: Stripe.Refund): ProcessorNotice {
  const paymentRef = idOf(refund.payment_intent);
  if (!paymentRef) return { kind: 'ignored', eventId };
  const status =
    refund.status === 'succeeded'
      ? 'succeeded'
      : refund.status === 'failed' || refund.status === 'canceled'
        ? 'failed'
        : 'pending';
  return {
    kind: 'refund',
    eventId,
    paymentRef,
    refundId: refund.metadata?.obolus_refund ?? null,
    ref: refund.id,
    status,
  };
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === 'string' ? value : (value?.id ?? null);
