import { type Action, type Answer, ckoId, invalid, type Json, type Payments, type StoredPayment } from './payments.ts';

/**
 * What Checkout.com does to a payment after it: refunds (202, only once `Captured`; an
 * `Authorized` payment answers 403 "Refund not allowed"), voids (202, only while `Authorized`),
 * the payment's actions, and disputes. Refund webhooks are shaped as the documentation's
 * examples: `data.id` the payment, `data.action_id` the refund's action, `data.reference` the
 * payment's reference; payment_refund_pending has no reference.
 */

/** What the next refunds end as: refunded at once, pending until told (settleRefund), or declined. */
export type RefundOutcome = 'refunded' | 'pending' | 'declined';

export interface HeldRefund {
  payment: StoredPayment;
  action: Action;
}

export class PaymentActions {
  readonly #payments: Payments;
  readonly #held = new Map<string, HeldRefund>();
  readonly #disputes = new Map<string, { dispute: Json; payment: StoredPayment }>();
  refundOutcome: RefundOutcome = 'refunded';

  constructor(payments: Payments) {
    this.#payments = payments;
  }

  refund(id: string, body: Json): Answer {
    const payment = this.#payments.find(id);
    if (!payment) return { status: 404, body: null };
    if (!['Captured', 'Partially Refunded'].includes(payment.status)) return notAllowed('refund_not_allowed');
    const captured = payment.captured ?? payment.amount;
    const amount = body.amount === undefined ? captured - payment.refunded : body.amount;
    if (!Number.isInteger(amount) || (amount as number) <= 0) return invalid('amount_invalid');
    if ((amount as number) > captured - payment.refunded) return invalid('refund_amount_exceeds_balance');
    const reference = typeof body.reference === 'string' ? body.reference : undefined;
    const action = this.#payments.addAction(payment, 'Refund', amount as number, '10000', reference);
    payment.refunded += action.amount;
    payment.status = payment.refunded === captured ? 'Refunded' : 'Partially Refunded';
    const outcome = this.refundOutcome;
    // The webhook follows the 202, as Checkout.com's processing does.
    setImmediate(() => {
      if (outcome === 'pending') {
        this.#held.set(action.id, { payment, action });
        const { id: pay, action_id, amount: sum, currency, processed_on } = this.#payments.eventData(payment, action);
        this.#payments.emit('payment_refund_pending', { id: pay, action_id, amount: sum, currency, processed_on });
      } else this.settle({ payment, action }, outcome);
    });
    return { status: 202, body: accepted(action, reference, this.#paymentLink(payment)) };
  }

  /** The bank finished a refund held pending. */
  settleRefund(actionId: string, outcome: 'refunded' | 'declined'): Json | null {
    const held = this.#held.get(actionId);
    if (!held) return null;
    this.#held.delete(actionId);
    this.settle(held, outcome);
    return { action_id: actionId, outcome };
  }

  settle({ payment, action }: HeldRefund, outcome: 'refunded' | 'declined'): void {
    if (outcome === 'declined') {
      payment.refunded -= action.amount;
      payment.status = payment.refunded === 0 ? 'Captured' : 'Partially Refunded';
      Object.assign(action, { approved: false, response_code: '20005', response_summary: 'Declined - Do Not Honour' });
    }
    const type = outcome === 'declined' ? 'payment_refund_declined' : 'payment_refunded';
    this.#payments.emit(type, this.#payments.eventData(payment, action));
  }

  /**
   * POST /payments/{id}/captures (CaptureRequest): 202 while `Authorized`, at most the amount
   * authorized; `Final` (the default here) releases the rest, `NonFinal` is not simulated.
   * The payment_captured event follows, as Checkout.com processes card captures asynchronously.
   */
  capture(id: string, body: Json): Answer {
    const payment = this.#payments.find(id);
    if (!payment) return { status: 404, body: null };
    if (payment.status !== 'Authorized') return notAllowed('capture_not_allowed');
    const amount = body.amount === undefined ? payment.amount : body.amount;
    if (!Number.isInteger(amount) || (amount as number) <= 0) return invalid('amount_invalid');
    if ((amount as number) > payment.amount) return invalid('capture_value_greater_than_authorized');
    const reference = typeof body.reference === 'string' ? body.reference : undefined;
    const action = this.#payments.addAction(payment, 'Capture', amount as number, '10000', reference);
    payment.status = 'Captured';
    payment.captured = amount as number;
    setImmediate(() => this.#payments.emit('payment_captured', this.#payments.eventData(payment, action)));
    return { status: 202, body: accepted(action, reference, this.#paymentLink(payment)) };
  }

  void(id: string, body: Json): Answer {
    const payment = this.#payments.find(id);
    if (!payment) return { status: 404, body: null };
    if (payment.status !== 'Authorized') return notAllowed('void_not_allowed');
    const reference = typeof body.reference === 'string' ? body.reference : undefined;
    const action = this.#payments.addAction(payment, 'Void', payment.amount, '10000', reference);
    payment.status = 'Voided';
    setImmediate(() => this.#payments.emit('payment_voided', this.#payments.eventData(payment, action)));
    return { status: 202, body: accepted(action, reference, this.#paymentLink(payment)) };
  }

  /** GET /payments/{id}/actions: every action, newest first. */
  list(id: string): Answer {
    const payment = this.#payments.find(id);
    if (!payment) return { status: 404, body: null };
    return { status: 200, body: [...payment.actions].reverse().map((a) => ({ ...a })) };
  }

  /** The card network opens a dispute: Checkout.com debits the merchant and asks for evidence. */
  dispute(paymentId: string): Json | null {
    const payment = this.#payments.find(paymentId);
    if (!payment) return null;
    const dispute: Json = {
      id: `dsp_${ckoId('x').slice(2, 24)}`,
      payment_id: payment.id,
      payment_reference: payment.reference,
      amount: payment.amount,
      currency: payment.currency,
      reason_code: '10.4',
      category: 'fraudulent',
      evidence_required_by: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    };
    this.#disputes.set(String(dispute.id), { dispute, payment });
    this.#payments.emit('dispute_evidence_required', dispute);
    return dispute;
  }

  /** The dispute's outcome: dispute_won, dispute_lost, dispute_canceled, dispute_expired or dispute_resolved. */
  closeDispute(id: string, outcome: string): Json | null {
    const found = this.#disputes.get(id);
    if (!found || !['won', 'lost', 'canceled', 'expired', 'resolved'].includes(outcome)) return null;
    const { evidence_required_by: _, ...dispute } = found.dispute;
    this.#payments.emit(`dispute_${outcome}`, dispute);
    return dispute;
  }

  #paymentLink(payment: StoredPayment): Json {
    const self = (this.#payments.details(payment)._links as Json).self;
    return { payment: self };
  }
}

const accepted = (action: Action, reference: string | undefined, links: Json): Json => ({
  action_id: action.id,
  ...(reference ? { reference } : {}),
  _links: links,
});

const notAllowed = (code: string): Answer => ({
  status: 403,
  body: { request_id: ckoId('req'), error_type: 'action_not_allowed', error_codes: [code] },
});
