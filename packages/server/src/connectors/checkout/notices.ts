import { createHmac, timingSafeEqual } from 'node:crypto';
import { NoticeRejected, type ProcessorNotice } from '../../domain/payments/ports.ts';
import { outcomeOfPayment } from './outcomes.ts';
import type { CkoEvent, CkoPayment } from './wire.ts';

/** Cko-Signature: the hex HMAC-SHA256 of the raw body with the webhook's key. Constant-time compare. */
export function signatureValid(rawBody: Buffer, signature: string, secret: string): boolean {
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  if (!/^[0-9a-f]{64}$/i.test(signature)) return false;
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/**
 * Documented payment events (decision 0196) and the state each one reports; the payment is
 * read afresh before anything is applied (domain/payments/notices.ts).
 */
const PAYMENT_EVENTS: Record<string, CkoPayment['status']> = {
  payment_approved: 'Authorized',
  payment_captured: 'Captured',
  payment_paid: 'Paid',
  payment_declined: 'Declined',
  payment_authentication_failed: 'Declined',
  payment_canceled: 'Cancelled',
  payment_cancelled: 'Cancelled',
  payment_expired: 'Expired',
  payment_voided: 'Voided',
};

/** Dispute events: evidence required means the merchant was debited; the outcomes say whether it came back. */
const DISPUTE_EVENTS: Record<string, 'opened' | 'won' | 'lost'> = {
  dispute_evidence_required: 'opened',
  dispute_won: 'won',
  dispute_canceled: 'won',
  dispute_lost: 'lost',
  dispute_expired: 'lost',
  dispute_resolved: 'lost',
};

const REFUND_EVENTS: Record<string, 'succeeded' | 'pending' | 'failed'> = {
  payment_refunded: 'succeeded',
  payment_refund_pending: 'pending',
  payment_refund_declined: 'failed',
};

/**
 * Verifies a Checkout.com webhook and reads the events Obolus acts on; anything else is
 * acknowledged and ignored. Checkout.com signs no timestamp: replays are dropped by event id.
 */
export function readCheckoutNotice(rawBody: Buffer, signature: string, secret: string): ProcessorNotice {
  if (!signatureValid(rawBody, signature, secret)) {
    throw new NoticeRejected('The Cko-Signature of this event is not valid.');
  }
  let event: CkoEvent;
  try {
    event = JSON.parse(rawBody.toString('utf8')) as CkoEvent;
  } catch {
    throw new NoticeRejected('The event is not JSON.');
  }
  const eventId = typeof event?.id === 'string' ? event.id : '';
  if (!eventId || !event.data || typeof event.data !== 'object') return { kind: 'ignored', eventId };
  return paymentNotice(eventId, event) ?? disputeNotice(eventId, event) ?? refundNotice(eventId, event);
}

function paymentNotice(eventId: string, event: CkoEvent): ProcessorNotice | null {
  const status = PAYMENT_EVENTS[event.type];
  const { data } = event;
  if (!status || !data.id) return null;
  // Our attempt id: the payment's metadata, else its reference (both ours).
  const attemptId = data.metadata?.obolus_attempt ?? data.reference ?? '';
  if (!attemptId) return { kind: 'ignored', eventId };
  const payment: CkoPayment = {
    id: data.id,
    status,
    response_code: data.response_code,
    ...(data.amount !== undefined && data.currency ? { amount: data.amount, currency: data.currency } : {}),
  };
  // The event names no 3-D Secure result: an authentication_failed event is a failed authentication.
  const failed3DS = event.type === 'payment_authentication_failed' ? { authentication_response: 'N' } : undefined;
  const outcome = outcomeOfPayment(failed3DS ? { ...payment, '3ds': failed3DS } : payment);
  return { kind: 'payment', eventId, attempt: { attemptId, paymentRef: data.id }, outcome };
}

function disputeNotice(eventId: string, event: CkoEvent): ProcessorNotice | null {
  const stage = DISPUTE_EVENTS[event.type];
  if (!stage) return null;
  const paymentRef = event.data.payment_id;
  return paymentRef ? { kind: 'dispute', eventId, paymentRef, stage } : { kind: 'ignored', eventId };
}

/**
 * A refund event names the payment (`data.id`) and the refund's action (`data.action_id`,
 * what our refund call was answered); its `reference` is the payment's (documentation
 * examples), so the refund is found by its action id. A reference of ours (re_…) is kept as
 * a second way in, should a real account send the refund's own reference.
 */
function refundNotice(eventId: string, event: CkoEvent): ProcessorNotice {
  const status = REFUND_EVENTS[event.type];
  const { data } = event;
  if (!status || !data.id || !data.action_id) return { kind: 'ignored', eventId };
  const refundId = data.reference?.startsWith('re_') ? data.reference : null;
  const amount = typeof data.amount === 'number' ? { amount: data.amount } : {};
  return { kind: 'refund', eventId, paymentRef: data.id, refundId, ref: data.action_id, status, ...amount };
}
