import { randomBytes } from 'node:crypto';
import type { CardProfile } from './cards.ts';

/** Stripe-shaped ids: a prefix and 24 base62-ish characters. */
export const stripeId = (prefix: string) =>
  `${prefix}_${randomBytes(18)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, '')
    .slice(0, 24)}`;

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export type Json = Record<string, unknown>;

export interface CardIn {
  number: string;
  expMonth: number;
  expYear: number;
  name: string | null;
}

export function paymentMethodOf(card: CardIn, profile: CardProfile): Json {
  return {
    id: stripeId('pm'),
    object: 'payment_method',
    type: 'card',
    created: nowSeconds(),
    livemode: true,
    billing_details: { name: card.name, email: null, phone: null, address: null },
    card: {
      brand: profile.brand,
      country: profile.country,
      funding: profile.funding,
      last4: card.number.slice(-4),
      exp_month: card.expMonth,
      exp_year: card.expYear,
    },
  };
}

export function chargeOf(pi: Json, pm: Json, profile: CardProfile, paid: boolean, threeDS: string | null): Json {
  const card = pm.card as Json;
  return {
    id: stripeId('ch'),
    object: 'charge',
    amount: pi.amount,
    amount_captured: paid ? pi.amount : 0,
    amount_refunded: 0,
    billing_details: pm.billing_details,
    captured: paid,
    paid,
    refunded: false,
    disputed: false,
    currency: 'usd',
    created: nowSeconds(),
    livemode: true,
    status: paid ? 'succeeded' : 'failed',
    payment_intent: pi.id,
    payment_method: pm.id,
    metadata: pi.metadata,
    outcome: {
      type: paid ? 'authorized' : 'issuer_declined',
      network_status: paid ? 'approved_by_network' : 'declined_by_network',
    },
    payment_method_details: {
      type: 'card',
      card: {
        ...card,
        issuer: profile.issuer,
        authorization_code: paid ? randomBytes(3).toString('hex').toUpperCase() : null,
        three_d_secure: threeDS ? { result: threeDS, authentication_flow: 'challenge', version: '2.2.0' } : null,
      },
    },
  };
}

/** Stripe's error body: `{"error": {type, code, decline_code, message, …}}`. */
export function errorBody(error: {
  type: string;
  message: string;
  code?: string;
  declineCode?: string;
  param?: string;
  extra?: Json;
}): Json {
  const body: Json = { type: error.type, message: error.message };
  if (error.code) {
    body.code = error.code;
    body.doc_url = `https://stripe.com/docs/error-codes/${error.code.replace(/_/g, '-')}`;
  }
  if (error.declineCode) body.decline_code = error.declineCode;
  if (error.param) body.param = error.param;
  body.request_log_url = 'https://dashboard.stripe.com/logs/req_double';
  return { error: { ...body, ...error.extra } };
}
