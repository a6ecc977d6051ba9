import { randomBytes } from 'node:crypto';

/**
 * Payments and refunds of the Checkout.com double, shaped as Checkout.com's Payments API
 * answers them (api-reference.checkout.com). Cards by number: 4242 4242 4242 4242 and
 * 4485 0403 7153 6584 (3-D Secure challenge) are Checkout.com's documented test cards; the
 * declines are ours (the sandbox triggers them by amount), one per response-code family.
 */

export type Json = Record<string, unknown>;
export interface Answer {
  status: number;
  body: Json;
}

interface CardProfile {
  scheme: string;
  issuer: string;
  country: string;
  cardType: string;
  responseCode: string;
  threeDS?: boolean;
}

const VISA: CardProfile = {
  scheme: 'Visa',
  issuer: 'Checkout Double Bank',
  country: 'US',
  cardType: 'CREDIT',
  responseCode: '10000',
};
const CARDS: Record<string, CardProfile> = {
  '4242424242424242': VISA,
  '5436031030606378': { ...VISA, scheme: 'Mastercard' },
  '4485040371536584': { ...VISA, threeDS: true },
  '4000000000000077': { ...VISA, country: 'gb', issuer: `A Very Long Bank Name ${'And Trust '.repeat(12)}`.trim() },
  '4000000000000002': { ...VISA, responseCode: '20005' },
  '4000000000009995': { ...VISA, responseCode: '20051' },
  '4000000000000069': { ...VISA, responseCode: '20054' },
  '4000000000000127': { ...VISA, responseCode: '20082' },
  '4000000000009987': { ...VISA, responseCode: '30041' },
  '4000000000009979': { ...VISA, responseCode: '30043' },
  '4100000000000019': { ...VISA, responseCode: '40101' },
};
const SUMMARIES: Record<string, string> = {
  '10000': 'Approved',
  '20005': 'Declined - Do Not Honour',
  '20051': 'Insufficient Funds',
  '20054': 'Expired Card',
  '20082': 'Invalid CVV',
  '30041': 'Lost Card - Pick Up',
  '30043': 'Stolen Card - Pick Up',
  '40101': 'Risk Blocked Transaction',
};

export const ckoId = (prefix: string) => `${prefix}_${randomBytes(13).toString('hex').slice(0, 26)}`;

export interface StoredPayment {
  payment: Json;
  refunded: number;
  successUrl: string;
  failureUrl: string;
}

export type Emit = (type: string, data: Json) => void;

export class Payments {
  readonly #byId = new Map<string, StoredPayment>();
  private readonly emit: Emit;
  private readonly baseUrl: () => string;
  constructor(emit: Emit, baseUrl: () => string) {
    this.emit = emit;
    this.baseUrl = baseUrl;
  }

  all(): Json[] {
    return [...this.#byId.values()].map((s) => s.payment);
  }

  create(body: Json): Answer {
    const source = (body.source ?? {}) as Json;
    const amount = body.amount;
    if (source.type !== 'card' || typeof source.number !== 'string' || !/^\d{12,19}$/.test(source.number)) {
      return invalid('card_number_invalid');
    }
    if (!Number.isInteger(amount) || (amount as number) < 0) return invalid('amount_invalid');
    if (typeof body.processing_channel_id !== 'string') return invalid('processing_channel_id_required');
    const card = CARDS[source.number] ?? VISA;
    const id = ckoId('pay');
    const payment: Json = {
      id,
      action_id: ckoId('act'),
      amount,
      currency: body.currency,
      reference: body.reference,
      metadata: body.metadata ?? {},
      processed_on: new Date().toISOString(),
      source: sourceOf(source.number, card),
    };
    const stored = {
      payment,
      refunded: 0,
      successUrl: String(body.success_url ?? ''),
      failureUrl: String(body.failure_url ?? ''),
    };
    this.#byId.set(id, stored);
    if (card.threeDS) {
      Object.assign(payment, {
        status: 'Pending',
        '3ds': { downgraded: false, enrolled: 'Y' },
        _links: {
          self: { href: `${this.baseUrl()}/payments/${id}` },
          redirect: { href: `${this.baseUrl()}/3ds/${id}` },
        },
      });
      return { status: 202, body: payment };
    }
    this.#decide(stored, card.responseCode);
    return { status: 201, body: payment };
  }

  get(id: string): Answer {
    const stored = this.#byId.get(id);
    return stored ? { status: 200, body: stored.payment } : { status: 404, body: {} };
  }

  byReference(reference: string): Answer {
    const data = this.all().filter((p) => p.reference === reference);
    return { status: 200, body: { limit: 10, skip: 0, total_count: data.length, data } };
  }

  /** The issuer's page answered: the payment is decided, and the shopper goes to success_url or failure_url. */
  completeThreeDS(id: string, passed: boolean): string | null {
    const stored = this.#byId.get(id);
    if (stored?.payment.status !== 'Pending') return null;
    stored.payment['3ds'] = {
      downgraded: false,
      enrolled: 'Y',
      authentication_response: passed ? 'Y' : 'N',
      challenged: true,
    };
    delete (stored.payment._links as Json).redirect;
    this.#decide(stored, passed ? '10000' : '20151');
    const url = new URL(passed ? stored.successUrl : stored.failureUrl);
    url.searchParams.set('cko-session-id', ckoId('sid'));
    return url.href;
  }

  refund(id: string, body: Json): Answer {
    const stored = this.#byId.get(id);
    if (!stored) return { status: 404, body: {} };
    const total = stored.payment.amount as number;
    const amount = body.amount === undefined ? total - stored.refunded : body.amount;
    if (!['Captured', 'Partially Refunded'].includes(String(stored.payment.status))) return refusedRefund();
    if (!Number.isInteger(amount) || (amount as number) <= 0) return invalid('amount_invalid');
    if ((amount as number) > total - stored.refunded) return invalid('refund_amount_exceeds_balance');
    stored.refunded += amount as number;
    stored.payment.status = stored.refunded === total ? 'Refunded' : 'Partially Refunded';
    const actionId = ckoId('act');
    const reference = typeof body.reference === 'string' ? body.reference : undefined;
    this.emit('payment_refunded', { ...eventData(stored.payment), action_id: actionId, amount, reference });
    return {
      status: 202,
      body: { action_id: actionId, reference, _links: { payment: { href: `${this.baseUrl()}/payments/${id}` } } },
    };
  }

  dispute(paymentId: string): Json | null {
    const stored = this.#byId.get(paymentId);
    if (!stored) return null;
    const dispute = {
      id: ckoId('dsp'),
      payment_id: paymentId,
      amount: stored.payment.amount,
      reason_code: '10.4',
      category: 'fraudulent',
    };
    this.emit('dispute_evidence_required', dispute);
    return dispute;
  }

  #decide(stored: StoredPayment, code: string): void {
    const approved = code === '10000';
    Object.assign(stored.payment, {
      approved,
      status: approved ? 'Captured' : 'Declined',
      response_code: code,
      response_summary: SUMMARIES[code] ?? 'Declined',
      ...(approved ? { auth_code: randomBytes(3).toString('hex').toUpperCase() } : {}),
    });
    stored.payment._links = { self: { href: `${this.baseUrl()}/payments/${stored.payment.id}` } };
    this.emit(approved ? 'payment_approved' : 'payment_declined', eventData(stored.payment));
  }
}

function sourceOf(number: string, card: CardProfile): Json {
  return {
    type: 'card',
    id: ckoId('src'),
    scheme: card.scheme,
    last4: number.slice(-4),
    bin: number.slice(0, 6),
    card_type: card.cardType,
    issuer: card.issuer,
    issuer_country: card.country,
  };
}

const eventData = (payment: Json): Json => ({
  id: payment.id,
  action_id: payment.action_id,
  reference: payment.reference,
  amount: payment.amount,
  currency: payment.currency,
  response_code: payment.response_code,
  response_summary: payment.response_summary,
  metadata: payment.metadata,
  source: payment.source,
});

const invalid = (code: string): Answer => ({
  status: 422,
  body: { request_id: ckoId('req'), error_type: 'request_invalid', error_codes: [code] },
});
const refusedRefund = (): Answer => ({
  status: 403,
  body: { request_id: ckoId('req'), error_type: 'action_not_allowed', error_codes: ['refund_not_allowed'] },
});
