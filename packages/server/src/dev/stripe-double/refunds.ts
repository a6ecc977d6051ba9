import { type FormValue, field } from './form.ts';
import { errorBody, type Json, nowSeconds, stripeId } from './objects.ts';
import type { Answer, Emit, Payments } from './payments.ts';

/** Refunds of the double's payments; their status can be moved later, as a bank would. */
export class Refunds {
  readonly #refunds = new Map<string, Json>();
  readonly #payments: Payments;
  readonly #emit: Emit;

  constructor(payments: Payments, emit: Emit) {
    this.#payments = payments;
    this.#emit = emit;
  }

  create(form: Record<string, FormValue>): Answer {
    const id = field(form, 'payment_intent') ?? '';
    const payment = this.#payments.get(id);
    if (!payment?.charge || payment.pi.status !== 'succeeded') {
      return invalid(`No such payment_intent: '${id}'`, 'payment_intent', 'resource_missing');
    }
    const charge = payment.charge;
    const remaining = Number(charge.amount) - Number(charge.amount_refunded);
    const amount = field(form, 'amount') === undefined ? remaining : Number(field(form, 'amount'));
    if (remaining <= 0)
      return invalid(`Charge ${charge.id} has already been refunded.`, undefined, 'charge_already_refunded');
    if (!Number.isInteger(amount) || amount < 1 || amount > remaining) {
      return invalid(
        `Refund amount ($${amount / 100}) is greater than unrefunded amount on charge ($${remaining / 100})`,
        'amount',
        'amount_too_large',
      );
    }
    charge.amount_refunded = Number(charge.amount_refunded) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    const refund: Json = {
      id: stripeId('re'),
      object: 'refund',
      amount,
      currency: 'usd',
      charge: charge.id,
      payment_intent: id,
      metadata: form.metadata ?? {},
      status: 'succeeded',
      created: nowSeconds(),
    };
    this.#refunds.set(String(refund.id), refund);
    this.#emit('refund.created', structuredClone(refund));
    this.#emit('charge.refunded', structuredClone(charge));
    return { status: 200, body: structuredClone(refund) };
  }

  /** The bank turned the refund down (or finished it): Stripe says so with refund.updated / refund.failed. */
  setStatus(id: string, status: 'succeeded' | 'pending' | 'failed'): Json | null {
    const refund = this.#refunds.get(id);
    if (!refund) return null;
    const charge = this.#payments.get(String(refund.payment_intent))?.charge;
    if (charge && status === 'failed' && refund.status !== 'failed') {
      // As at Stripe: a failed refund's amount is no longer counted as refunded on the charge.
      charge.amount_refunded = Number(charge.amount_refunded) - Number(refund.amount);
      charge.refunded = false;
    }
    refund.status = status;
    this.#emit(status === 'failed' ? 'refund.failed' : 'refund.updated', structuredClone(refund));
    return structuredClone(refund);
  }

  all(): Json[] {
    return [...this.#refunds.values()].map((r) => structuredClone(r));
  }
}

const invalid = (message: string, param: string | undefined, code: string): Answer => ({
  status: 400,
  body: errorBody({ type: 'invalid_request_error', code, message, ...(param ? { param } : {}) }),
});
