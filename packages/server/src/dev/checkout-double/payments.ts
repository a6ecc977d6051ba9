import { randomBytes } from 'node:crypto';
import { type CardProfile, cardProfile, SUMMARIES } from './cards.ts';

/**
 * Payments of the Checkout.com double, shaped as Checkout.com's Payments API answers them
 * (test/fixtures/acquirers/checkout-openapi.json, checked by the test suite): POST /payments
 * answers 201 `Authorized` (or `Declined`), or 202 `Pending` with a 3-D Secure redirect; with
 * `capture: true` the payment becomes `Captured` a moment later (`captureDelayMs`) with a
 * payment_captured event; GET /payments/{id} answers the payment's details, and
 * GET /payments?reference= the list, newest first. Refunds, voids and disputes: actions.ts.
 */

export type Json = Record<string, unknown>;
export interface Answer {
  status: number;
  body: Json | Json[] | null;
}

export type CkoStatus =
  | 'Pending'
  | 'Authorized'
  | 'Captured'
  | 'Partially Refunded'
  | 'Refunded'
  | 'Declined'
  | 'Voided';

export interface Action {
  id: string;
  type: 'Authorization' | 'Capture' | 'Refund' | 'Void';
  amount: number;
  approved: boolean;
  response_code: string;
  response_summary: string;
  processed_on: string;
  reference?: string;
}

export interface StoredPayment {
  id: string;
  reference: string;
  amount: number;
  currency: string;
  metadata: Json;
  source: Json;
  requestedOn: string;
  status: CkoStatus;
  approved: boolean;
  responseCode: string | null;
  authCode: string | null;
  threeDS: Json | null;
  capture: boolean;
  successUrl: string;
  failureUrl: string;
  actions: Action[];
  /** Refunds accepted and not declined, in minor units. */
  refunded: number;
  /** What was captured (all of `amount` by an automatic capture, part of it by a `Final` partial one); null before. */
  captured: number | null;
}

export type Emit = (type: string, data: Json) => void;

/** Checkout.com's ids: a prefix and 26 lower-case base32 characters. */
export const ckoId = (prefix: string) => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `${prefix}_${[...randomBytes(26)].map((b) => alphabet[b % 32]).join('')}`;
};
export const now = () => new Date().toISOString();

export class Payments {
  readonly #byId = new Map<string, StoredPayment>();
  readonly #emit: Emit;
  readonly #baseUrl: () => string;
  /** How long an authorized payment with capture: true waits for its capture (0: the next moment). */
  captureDelayMs = 0;

  constructor(emit: Emit, baseUrl: () => string) {
    this.#emit = emit;
    this.#baseUrl = baseUrl;
  }

  find(id: string): StoredPayment | undefined {
    return this.#byId.get(id);
  }

  /** Every payment's details, as GET /payments/{id} shows them. */
  all(): Json[] {
    return [...this.#byId.values()].map((p) => this.details(p));
  }

  emit(type: string, data: Json): void {
    this.#emit(type, data);
  }

  create(body: Json): Answer {
    const source = (body.source ?? {}) as Json;
    const amount = body.amount;
    if (source.type !== 'card' || typeof source.number !== 'string' || !/^\d{12,19}$/.test(source.number)) {
      return invalid('card_number_invalid');
    }
    if (!Number.isInteger(amount) || (amount as number) < 0) return invalid('amount_invalid');
    if (typeof body.processing_channel_id !== 'string') return invalid('processing_channel_id_required');
    const card = cardProfile(source.number);
    const payment = this.#stored(body, source, card);
    const threeDS = (body['3ds'] ?? {}) as Json;
    if (threeDS.enabled === true && card.threeDS === 'challenge') {
      payment.threeDS = { downgraded: false, enrolled: 'Y' };
      return { status: 202, body: this.#accepted(payment) };
    }
    if (threeDS.enabled === true && card.threeDS === 'not_enrolled') {
      // attempt_n3d: the issuer is not enrolled, so the payment goes on without authentication.
      payment.threeDS = { downgraded: threeDS.attempt_n3d === true, enrolled: 'N' };
      this.#decide(payment, threeDS.attempt_n3d === true ? card.responseCode : '20150');
      return { status: 201, body: this.#response(payment) };
    }
    if (threeDS.enabled === true) payment.threeDS = { downgraded: false, enrolled: 'Y', authentication_response: 'Y' };
    this.#decide(payment, card.responseCode);
    return { status: 201, body: this.#response(payment) };
  }

  #stored(body: Json, source: Json, card: CardProfile): StoredPayment {
    const number = String(source.number);
    const payment: StoredPayment = {
      id: ckoId('pay'),
      reference: typeof body.reference === 'string' ? body.reference : '',
      amount: body.amount as number,
      currency: String(body.currency),
      metadata: (body.metadata ?? {}) as Json,
      source: {
        type: 'card',
        id: ckoId('src'),
        expiry_month: source.expiry_month,
        expiry_year: source.expiry_year,
        ...(typeof source.name === 'string' ? { name: source.name } : {}),
        scheme: card.scheme,
        last4: number.slice(-4),
        fingerprint: randomBytes(32).toString('hex').toUpperCase(),
        bin: number.slice(0, 6),
        card_type: card.cardType,
        issuer: card.issuer,
        issuer_country: card.country,
      },
      requestedOn: now(),
      status: 'Pending',
      approved: false,
      responseCode: null,
      authCode: null,
      threeDS: null,
      capture: body.capture !== false,
      successUrl: String(body.success_url ?? ''),
      failureUrl: String(body.failure_url ?? ''),
      actions: [],
      refunded: 0,
      captured: null,
    };
    this.#byId.set(payment.id, payment);
    return payment;
  }

  /** The issuer answered: Authorized (and captured a moment later) or Declined, with its event. */
  #decide(payment: StoredPayment, code: string): void {
    const approved = code === '10000';
    Object.assign(payment, {
      approved,
      status: approved ? 'Authorized' : 'Declined',
      responseCode: code,
      authCode: approved ? randomBytes(3).toString('hex').toUpperCase() : null,
    });
    const action = this.addAction(payment, 'Authorization', payment.amount, code);
    this.#emit(approved ? 'payment_approved' : 'payment_declined', this.eventData(payment, action));
    if (approved && payment.capture) {
      setTimeout(() => this.#captured(payment), this.captureDelayMs).unref();
    }
  }

  #captured(payment: StoredPayment): void {
    if (payment.status !== 'Authorized') return;
    payment.status = 'Captured';
    payment.captured = payment.amount;
    const action = this.addAction(payment, 'Capture', payment.amount, '10000');
    this.#emit('payment_captured', this.eventData(payment, action));
  }

  addAction(payment: StoredPayment, type: Action['type'], amount: number, code: string, reference?: string): Action {
    const action: Action = {
      id: ckoId('act'),
      type,
      amount,
      approved: code === '10000',
      response_code: code,
      response_summary: SUMMARIES[code] ?? 'Declined',
      processed_on: now(),
      ...(reference ? { reference } : {}),
    };
    payment.actions.push(action);
    return action;
  }

  get(id: string): Answer {
    const payment = this.#byId.get(id);
    return payment ? { status: 200, body: this.details(payment) } : { status: 404, body: null };
  }

  /** GET /payments?reference=: newest first, as the documentation page says. */
  byReference(reference: string, hideAll = false): Answer {
    const data = hideAll
      ? []
      : [...this.#byId.values()]
          .filter((p) => p.reference === reference)
          .reverse()
          .map((p) => this.details(p));
    return { status: 200, body: { limit: 10, skip: 0, total_count: data.length, data } };
  }

  /** The issuer's page answered: the payment is decided, and the shopper goes to success_url or failure_url. */
  completeThreeDS(id: string, passed: boolean): string | null {
    const payment = this.#byId.get(id);
    if (payment?.status !== 'Pending') return null;
    // `challenged` (the current API's 3ds object): the shopper saw the issuer's page.
    payment.threeDS = {
      downgraded: false,
      enrolled: 'Y',
      authentication_response: passed ? 'Y' : 'N',
      challenged: true,
    };
    this.#decide(payment, passed ? '10000' : '20151');
    const url = new URL(passed ? payment.successUrl : payment.failureUrl);
    url.searchParams.set('cko-session-id', ckoId('sid'));
    return url.href;
  }

  /** A webhook's data, as the documentation's examples show them. */
  eventData(payment: StoredPayment, action: Action): Json {
    return {
      id: payment.id,
      action_id: action.id,
      reference: payment.reference,
      amount: action.amount,
      currency: payment.currency,
      processed_on: action.processed_on,
      response_code: action.response_code,
      response_summary: action.response_summary,
      metadata: payment.metadata,
      source: payment.source,
    };
  }

  #links(payment: StoredPayment): Json {
    const self = `${this.#baseUrl()}/payments/${payment.id}`;
    const links: Json = { self: { href: self }, actions: { href: `${self}/actions` } };
    if (payment.status === 'Authorized') links.void = { href: `${self}/voids` };
    if (['Captured', 'Partially Refunded'].includes(payment.status)) links.refund = { href: `${self}/refunds` };
    if (payment.status === 'Pending') links.redirect = { href: `${this.#baseUrl()}/3ds/${payment.id}` };
    return links;
  }

  /** 201 to POST /payments (PaymentResponse). */
  #response(payment: StoredPayment): Json {
    const [authorization] = payment.actions;
    return {
      id: payment.id,
      action_id: authorization?.id,
      amount: payment.amount,
      currency: payment.currency,
      approved: payment.approved,
      status: payment.status,
      ...(payment.authCode ? { auth_code: payment.authCode } : {}),
      response_code: payment.responseCode,
      response_summary: SUMMARIES[payment.responseCode ?? ''] ?? 'Declined',
      ...(payment.threeDS
        ? { '3ds': { downgraded: payment.threeDS.downgraded, enrolled: payment.threeDS.enrolled } }
        : {}),
      risk: { flagged: false },
      source: payment.source,
      processed_on: authorization?.processed_on,
      reference: payment.reference,
      _links: this.#links(payment),
    };
  }

  /** 202 to POST /payments (PaymentAcceptedResponse): the shopper must go to the issuer's page. */
  #accepted(payment: StoredPayment): Json {
    const links = this.#links(payment);
    return {
      id: payment.id,
      status: 'Pending',
      reference: payment.reference,
      '3ds': payment.threeDS,
      _links: { self: links.self, redirect: links.redirect },
    };
  }

  /** GET /payments/{id} (PaymentDetails): no response code at the top, the actions carry them. */
  details(payment: StoredPayment): Json {
    return {
      id: payment.id,
      requested_on: payment.requestedOn,
      source: payment.source,
      amount: payment.amount,
      currency: payment.currency,
      payment_type: 'Regular',
      reference: payment.reference,
      status: payment.status,
      approved: payment.approved,
      ...(payment.threeDS ? { '3ds': payment.threeDS } : {}),
      risk: { flagged: false },
      metadata: payment.metadata,
      actions: payment.actions.map(({ id, type, response_code, response_summary }) => ({
        id,
        type,
        response_code,
        response_summary,
      })),
      _links: this.#links(payment),
    };
  }
}

export const invalid = (code: string): Answer => ({
  status: 422,
  body: { request_id: ckoId('req'), error_type: 'request_invalid', error_codes: [code] },
});
