import type Stripe from 'stripe';
import { NoticeRejected, type ProcessorNotice } from '../../domain/payments/ports.ts';
import { outcomeOfIntent } from './outcomes.ts';

/** Stripe's own default: an event signed longer ago than this, or further ahead (decision 0199), is refused. */
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
  // The SDK refuses only the past: a signature dated ahead of our clock is as suspect (a
  // replayable capture, or a sender's clock far off).
  if (signedAt(signature) - Date.now() / 1000 > TOLERANCE_SECONDS) {
    throw new NoticeRejected('The Stripe-Signature of this event is dated in the future.');
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
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const dispute = event.data.object;
      const paymentRef = idOf(dispute.payment_intent);
      const stage = event.type === 'charge.dispute.created' ? 'opened' : DISPUTE_CLOSED[dispute.status];
      return paymentRef && stage ? { kind: 'dispute', eventId, paymentRef, stage } : { kind: 'ignored', eventId };
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

/** How a closed dispute ended: won gives the money back; warning_closed was never a chargeback. */
const DISPUTE_CLOSED: Partial<Record<Stripe.Dispute.Status, 'won' | 'lost'>> = { won: 'won', lost: 'lost' };

/** The t= of a Stripe-Signature header (unix seconds), already checked by the SDK. */
const signedAt = (header: string) => Number(/(?:^|,)t=(\d+)/.exec(header)?.[1] ?? 0);

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === 'string' ? value : (value?.id ?? null);
