import { randomBytes } from 'node:crypto';
import { type CardProfile, cardProfile } from './cards.ts';
import { type FormValue, field, stringList } from './form.ts';
import { type CardIn, chargeOf, errorBody, type Json, nowSeconds, paymentMethodOf, stripeId } from './objects.ts';

export interface Answer {
  status: number;
  body: Json;
}

interface Payment {
  pi: Json;
  pm: Json;
  profile: CardProfile;
  charge: Json | null;
  returnUrl: string | null;
}

/** Events the double sends to the webhook endpoint. */
export type Emit = (type: string, object: Json) => void;

const invalid = (message: string, param?: string, code = 'parameter_missing'): Answer => ({
  status: 400,
  body: errorBody({ type: 'invalid_request_error', code, message, ...(param ? { param } : {}) }),
});

/** PaymentIntents as Stripe keeps them: create-and-confirm, retrieve, search, 3-D Secure. */
export class Payments {
  readonly #payments = new Map<string, Payment>();
  readonly #disputes = new Map<string, Json>();
  readonly #emit: Emit;
  readonly #origin: () => string;

  constructor(emit: Emit, origin: () => string) {
    this.#emit = emit;
    this.#origin = origin;
  }

  get(id: string): Payment | undefined {
    return this.#payments.get(id);
  }

  all(): Payment[] {
    return [...this.#payments.values()];
  }

  create(form: Record<string, FormValue>): Answer {
    const amount = Number(field(form, 'amount'));
    if (!Number.isInteger(amount)) return invalid('Missing required param: amount.', 'amount');
    if (amount < 50) return invalid('Amount must be at least $0.50 usd', 'amount', 'amount_too_small');
    if (field(form, 'currency') !== 'usd') return invalid('Invalid currency.', 'currency', 'parameter_invalid_empty');
    const card = cardOf(form);
    if (!card) return invalid('Missing required param: payment_method_data[card].', 'payment_method_data[card]');
    const returnUrl = field(form, 'return_url') ?? null;
    if (field(form, 'confirm') === 'true' && !returnUrl) {
      return invalid('return_url is required when confirm=true.', 'return_url');
    }
    const profile = cardProfile(card.number);
    const id = stripeId('pi');
    const pi: Json = {
      id,
      object: 'payment_intent',
      amount,
      amount_received: 0,
      currency: 'usd',
      capture_method: field(form, 'capture_method') === 'manual' ? 'manual' : 'automatic',
      confirmation_method: 'automatic',
      client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
      created: nowSeconds(),
      livemode: true,
      metadata: form.metadata ?? {},
      statement_descriptor_suffix: field(form, 'statement_descriptor_suffix') ?? null,
      payment_method_types: ['card'],
      status: 'requires_payment_method',
      latest_charge: null,
      last_payment_error: null,
      next_action: null,
    };
    const payment: Payment = { pi, pm: paymentMethodOf(card, profile), profile, charge: null, returnUrl };
    pi.payment_method = payment.pm.id;
    this.#payments.set(id, payment);
    return this.#confirm(payment, stringList(form.expand));
  }

  #confirm(payment: Payment, expand: string[]): Answer {
    const { scenario } = payment.profile;
    if (scenario.kind === 'three_ds') {
      Object.assign(payment.pi, {
        status: 'requires_action',
        next_action: {
          type: 'redirect_to_url',
          redirect_to_url: { url: `${this.#origin()}/3ds/${payment.pi.id}`, return_url: payment.returnUrl },
        },
      });
      this.#emit('payment_intent.requires_action', this.view(payment, []));
      return { status: 200, body: this.view(payment, expand) };
    }
    if (scenario.kind === 'decline')
      return this.#decline(payment, scenario.code, scenario.declineCode, scenario.message);
    this.#succeed(payment, null);
    if (scenario.kind === 'dispute') setTimeout(() => this.dispute(String(payment.pi.id)), 20).unref();
    return { status: 200, body: this.view(payment, expand) };
  }

  /** Approved: captured at once, or, with capture_method=manual, authorized only (requires_capture). */
  #succeed(payment: Payment, threeDS: string | null): void {
    const manual = payment.pi.capture_method === 'manual';
    payment.charge = chargeOf(payment.pi, payment.pm, payment.profile, true, threeDS);
    if (manual) Object.assign(payment.charge, { captured: false, amount_captured: 0 });
    Object.assign(payment.pi, {
      status: manual ? 'requires_capture' : 'succeeded',
      amount_received: manual ? 0 : payment.pi.amount,
      amount_capturable: manual ? payment.pi.amount : 0,
      latest_charge: payment.charge.id,
      next_action: null,
    });
    this.#emit(
      manual ? 'payment_intent.amount_capturable_updated' : 'payment_intent.succeeded',
      this.view(payment, []),
    );
  }

  /**
   * POST /v1/payment_intents/{id}/capture: a requires_capture PaymentIntent is captured, all of
   * it or `amount_to_capture`; as at Stripe, the rest is released (counted refunded on the charge).
   */
  capture(id: string, form: Record<string, FormValue>, expand: string[]): Answer {
    const payment = this.#payments.get(id);
    if (!payment) return this.retrieve(id, expand);
    if (payment.pi.status !== 'requires_capture' || !payment.charge) {
      const message = `This PaymentIntent could not be captured because it has a status of ${payment.pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`;
      return {
        status: 400,
        body: errorBody({ type: 'invalid_request_error', code: 'payment_intent_unexpected_state', message }),
      };
    }
    const capturable = Number(payment.pi.amount_capturable);
    const asked = field(form, 'amount_to_capture');
    const amount = asked === undefined ? capturable : Number(asked);
    if (!Number.isInteger(amount) || amount < 1 || amount > capturable) {
      return invalid(
        `The amount to capture must be between 1 and the amount capturable (${capturable}).`,
        'amount_to_capture',
        'amount_too_large',
      );
    }
    Object.assign(payment.charge, {
      captured: true,
      amount_captured: amount,
      amount_refunded: Number(payment.charge.amount) - amount,
    });
    Object.assign(payment.pi, { status: 'succeeded', amount_received: amount, amount_capturable: 0 });
    this.#emit('charge.captured', payment.charge);
    this.#emit('payment_intent.succeeded', this.view(payment, []));
    return { status: 200, body: this.view(payment, expand) };
  }

  /** POST /v1/payment_intents/{id}/cancel: an uncaptured PaymentIntent is cancelled, its authorization released. */
  cancel(id: string, expand: string[]): Answer {
    const payment = this.#payments.get(id);
    if (!payment) return this.retrieve(id, expand);
    if (['succeeded', 'canceled'].includes(String(payment.pi.status))) {
      const message = `You cannot cancel this PaymentIntent because it has a status of ${payment.pi.status}.`;
      return {
        status: 400,
        body: errorBody({ type: 'invalid_request_error', code: 'payment_intent_unexpected_state', message }),
      };
    }
    Object.assign(payment.pi, {
      status: 'canceled',
      canceled_at: nowSeconds(),
      cancellation_reason: 'requested_by_customer',
      amount_capturable: 0,
      next_action: null,
    });
    this.#emit('payment_intent.canceled', this.view(payment, []));
    return { status: 200, body: this.view(payment, expand) };
  }

  #decline(payment: Payment, code: string, declineCode: string | undefined, message: string): Answer {
    payment.charge = chargeOf(payment.pi, payment.pm, payment.profile, false, null);
    const error = { type: 'card_error', code, message, ...(declineCode ? { decline_code: declineCode } : {}) };
    Object.assign(payment.pi, {
      status: 'requires_payment_method',
      latest_charge: payment.charge.id,
      next_action: null,
      last_payment_error: { ...error, charge: payment.charge.id, payment_method: payment.pm },
    });
    this.#emit('payment_intent.payment_failed', this.view(payment, []));
    return {
      status: 402,
      body: errorBody({
        type: 'card_error',
        code,
        ...(declineCode ? { declineCode } : {}),
        message,
        extra: { charge: payment.charge.id, payment_intent: this.view(payment, []), payment_method: payment.pm },
      }),
    };
  }

  /** The shopper passed or failed the double's 3-D Secure page. Answers where to send them back. */
  completeThreeDS(id: string, passed: boolean): string | null {
    const payment = this.#payments.get(id);
    if (payment?.pi.status !== 'requires_action') return payment?.returnUrl ?? null;
    const { scenario } = payment.profile;
    if (!passed) {
      const message = 'We are unable to authenticate your payment method.';
      this.#decline(payment, 'payment_intent_authentication_failure', undefined, message);
    } else if (scenario.kind === 'three_ds' && scenario.whenPassed !== 'approve') {
      this.#decline(payment, scenario.whenPassed.code, scenario.whenPassed.declineCode, 'Your card was declined.');
    } else this.#succeed(payment, 'authenticated');
    const back = new URL(payment.returnUrl ?? this.#origin());
    back.searchParams.set('payment_intent', String(payment.pi.id));
    back.searchParams.set('payment_intent_client_secret', String(payment.pi.client_secret));
    back.searchParams.set(
      'redirect_status',
      passed && (payment.pi.status as string) === 'succeeded' ? 'succeeded' : 'failed',
    );
    return back.href;
  }

  retrieve(id: string, expand: string[]): Answer {
    const payment = this.#payments.get(id);
    if (!payment) {
      return {
        status: 404,
        body: errorBody({
          type: 'invalid_request_error',
          code: 'resource_missing',
          param: 'intent',
          message: `No such payment_intent: '${id}'`,
        }),
      };
    }
    return { status: 200, body: this.view(payment, expand) };
  }

  /** Supports the one query Obolus sends: metadata['key']:'value'. */
  search(query: string, expand: string[], stale = false): Answer {
    const match = /^metadata\['([A-Za-z0-9_]+)'\]:'([^']*)'$/.exec(query.trim());
    if (!match) return invalid("The double understands metadata['key']:'value' only.", 'query', 'parameter_invalid');
    const [, key, value] = match as unknown as [string, string, string];
    const data = this.all()
      .filter((p) => !stale && (p.pi.metadata as Record<string, unknown>)[key] === value)
      .map((p) =>
        this.view(
          p,
          expand.map((e) => e.replace(/^data\./, '')),
        ),
      );
    return {
      status: 200,
      body: { object: 'search_result', data, has_more: false, next_page: null, url: '/v1/payment_intents/search' },
    };
  }

  /** The card network opens a dispute on the payment's charge. */
  dispute(id: string): Json | null {
    const payment = this.#payments.get(id);
    if (!payment?.charge || payment.pi.status !== 'succeeded') return null;
    payment.charge.disputed = true;
    const dispute: Json = {
      id: stripeId('dp'),
      object: 'dispute',
      amount: payment.pi.amount,
      balance_transactions: [],
      currency: 'usd',
      charge: payment.charge.id,
      payment_intent: payment.pi.id,
      evidence: {},
      evidence_details: {
        due_by: nowSeconds() + 7 * 86_400,
        has_evidence: false,
        past_due: false,
        submission_count: 0,
      },
      is_charge_refundable: false,
      metadata: {},
      reason: 'fraudulent',
      status: 'needs_response',
      created: nowSeconds(),
      livemode: true,
    };
    this.#disputes.set(String(dispute.id), dispute);
    this.#emit('charge.dispute.created', structuredClone(dispute));
    return dispute;
  }

  /** The card network decides a dispute: Stripe says so with charge.dispute.closed. */
  closeDispute(id: string, status: 'won' | 'lost'): Json | null {
    const dispute = this.#disputes.get(id);
    if (!dispute) return null;
    dispute.status = status;
    this.#emit('charge.dispute.closed', structuredClone(dispute));
    return structuredClone(dispute);
  }

  view(payment: Payment, expand: string[]): Json {
    const expanded = expand.includes('latest_charge') && payment.charge;
    return structuredClone({ ...payment.pi, latest_charge: expanded ? payment.charge : payment.pi.latest_charge });
  }
}

function cardOf(form: Record<string, FormValue>): CardIn | null {
  if (field(form, 'payment_method_data', 'type') !== 'card') return null;
  const number = field(form, 'payment_method_data', 'card', 'number');
  const expMonth = Number(field(form, 'payment_method_data', 'card', 'exp_month'));
  const expYear = Number(field(form, 'payment_method_data', 'card', 'exp_year'));
  if (!number || !Number.isInteger(expMonth) || !Number.isInteger(expYear)) return null;
  return { number, expMonth, expYear, name: field(form, 'payment_method_data', 'billing_details', 'name') ?? null };
}
