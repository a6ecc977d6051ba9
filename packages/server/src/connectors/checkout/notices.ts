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

const PAYMENT_EVENTS: Record<string, CkoPayment['status']> = {
  payment_approved: 'Authorized',
  payment_captured: 'Captured',
  payment_declined: 'Declined',
  payment_authentication_failed: 'Declined',
  payment_canceled: 'Canceled',
  payment_expired: 'Expired',
  payment_voided: 'Voided',
};

const DISPUTE_EVENTS = new Set(['dispute_received', 'dispute_evidence_required']);
const REFUND_EVENTS: Record<string, 'succeeded' | 'failed'> = {
  payment_refunded: 'succeeded',
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
  const data = event.data;
  const status = PAYMENT_EVENTS[event.type];
  if (status && data.id) {
    const attemptId = data.metadata?.obolus_attempt ?? data.reference ?? '';
    if (!attemptId) return { kind: 'ignored', eventId };
    const payment: CkoPayment = { id: data.id, status, response_code: data.response_code };
    const failed3DS = event.type === 'payment_authentication_failed' ? { authentication_response: 'N' } : undefined;
    const outcome = outcomeOfPayment(failed3DS ? { ...payment, '3ds': failed3DS } : payment);
    return { kind: 'payment', eventId, attempt: { attemptId, paymentRef: data.id }, outcome };
  }
  if (DISPUTE_EVENTS.has(event.type) && data.payment_id) {
    return { kind: 'dispute', eventId, paymentRef: data.payment_id };
  }
  const refund = REFUND_EVENTS[event.type];
  if (refund && data.id && data.action_id) {
    // Our refund id travels as the refund's reference.
    const refundId = data.reference?.startsWith('re_') ? data.reference : null;
    return { kind: 'refund', eventId, paymentRef: data.id, refundId, ref: data.action_id, status: refund };
  }
  return { kind: 'ignored', eventId };
}
