import type Stripe from 'stripe';
import { declined, NOT_PROCESSED_MESSAGE, notProcessed, unknownOutcome } from '../../domain/payments/declines.ts';
import type {
  AuthorizeOutcome,
  DeclineCode,
  Funds,
  IssuerInfo,
  ProcessorRefs,
  ThreeDSResult,
} from '../../domain/payments/ports.ts';

/**
 * What Stripe's answers mean for the money (docs/live.md, decision 0101). Pure functions:
 * the SDK calls are in processor.ts.
 */

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  cartes_bancaires: 'Cartes Bancaires',
  eftpos_au: 'eftpos',
  interac: 'Interac',
};

/**
 * Stripe's decline_code (or error code) -> the decline the shopper is told. Anything else
 * (lost or stolen card, fraud, do not honor) is a plain card_declined: precise reasons
 * help card testers only.
 */
const DECLINES: Record<string, DeclineCode> = {
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  incorrect_cvc: 'incorrect_cvc',
  invalid_cvc: 'incorrect_cvc',
  authentication_required: 'authentication_failed',
  payment_intent_authentication_failure: 'authentication_failed',
};

export const declineCodeOf = (...codes: (string | null | undefined)[]): DeclineCode =>
  codes.map((code) => (code ? DECLINES[code] : undefined)).find((c) => c !== undefined) ?? 'card_declined';

const chargeOf = (pi: Stripe.PaymentIntent): Stripe.Charge | null =>
  pi.latest_charge && typeof pi.latest_charge === 'object' ? pi.latest_charge : null;

const refsOf = (pi: Stripe.PaymentIntent): ProcessorRefs => ({
  payment: pi.id,
  charge: typeof pi.latest_charge === 'string' ? pi.latest_charge : (pi.latest_charge?.id ?? null),
});

/** The card as the charge describes it; every detail optional (issuer-details.ts tidies them). */
export function issuerOfCharge(charge: Stripe.Charge | null): IssuerInfo | null {
  const card = charge?.payment_method_details?.card;
  if (!card) return null;
  return {
    brand: card.brand ? (BRANDS[card.brand] ?? card.brand) : null,
    bank: card.issuer ?? null,
    country: card.country,
    funding: card.funding,
  };
}

function issuerOfMethod(method: Stripe.PaymentMethod | null | undefined): IssuerInfo | null {
  const card = method?.card;
  if (!card) return null;
  return { brand: BRANDS[card.brand] ?? card.brand, country: card.country, funding: card.funding };
}

/** Stripe says how the shopper was authenticated (authentication_flow); without it, whether we showed a page. */
function threeDSOf(charge: Stripe.Charge | null, challenged: boolean): ThreeDSResult {
  const secure = charge?.payment_method_details?.card?.three_d_secure;
  if (secure?.authentication_flow === 'challenge' || (challenged && !secure?.authentication_flow)) {
    return !secure?.result || secure.result === 'authenticated' ? 'challenge_passed' : 'challenge_failed';
  }
  return secure?.result ? 'frictionless' : 'not_required';
}

/**
 * A PaymentIntent's state -> our outcome. `challenged`: the shopper went through a 3-D
 * Secure page for it. A state that does not say whether money moved is `unknown`.
 */
export function outcomeOfIntent(pi: Stripe.PaymentIntent, challenged = false): AuthorizeOutcome {
  const charge = chargeOf(pi);
  const refs = refsOf(pi);
  const notes = { acquirer: wordsOf(pi), money: { amount: pi.amount, currency: pi.currency } };
  switch (pi.status) {
    case 'succeeded':
    case 'requires_capture':
      return {
        kind: 'approved',
        issuer: issuerOfCharge(charge),
        authorizationCode: charge?.payment_method_details?.card?.authorization_code ?? null,
        threeDS: threeDSOf(charge, challenged),
        refs,
        funds: fundsOf(pi) ?? 'captured',
        ...notes,
      };
    case 'requires_action': {
      const url = pi.next_action?.type === 'redirect_to_url' ? pi.next_action.redirect_to_url?.url : null;
      if (!url || challenged) return { ...unknownOutcome(refs), acquirer: notes.acquirer };
      const issuer = issuerOfCharge(charge);
      return { kind: 'challenge', issuer, challengeRef: pi.id, redirectUrl: url, refs, acquirer: notes.acquirer };
    }
    case 'requires_payment_method': {
      const error = pi.last_payment_error;
      if (!error) return { ...notProcessed(), acquirer: notes.acquirer };
      const code = declineCodeOf(error.decline_code, error.code);
      const threeDS: ThreeDSResult =
        challenged || code === 'authentication_failed' ? 'challenge_failed' : 'not_required';
      return {
        ...declined(issuerOfMethod(error.payment_method) ?? issuerOfCharge(charge), code, threeDS, refs),
        ...notes,
      };
    }
    case 'canceled':
    case 'requires_confirmation':
      // Not confirmed, or cancelled before any capture: no money moved.
      return { kind: 'error', issuer: null, message: NOT_PROCESSED_MESSAGE, acquirer: notes.acquirer };
    default:
      // processing: the card network has not answered yet.
      return { ...unknownOutcome(refs), acquirer: notes.acquirer };
  }
}

/** requires_capture: authorized, voidable by a cancel; succeeded: captured. Otherwise not approved. */
export function fundsOf(pi: Stripe.PaymentIntent): Funds | null {
  if (pi.status === 'requires_capture') return 'authorized';
  return pi.status === 'succeeded' ? 'captured' : null;
}

/** Stripe's own words for a PaymentIntent, for operators (never card data). */
function wordsOf(pi: Stripe.PaymentIntent): string {
  const error = pi.last_payment_error;
  return [pi.status, error?.code, error?.decline_code].filter(Boolean).join(' ');
}

/**
 * A failed SDK call -> our outcome. Only answers that prove the request was refused
 * before any money could move are failures; everything else is `unknown` (decision 0041).
 */
export function outcomeOfError(error: unknown): AuthorizeOutcome {
  const e = error as Partial<Stripe.errors.StripeError> & { payment_intent?: Stripe.PaymentIntent };
  const status = e.statusCode;
  const acquirer = [status, e.type, e.code, e.decline_code].filter(Boolean).join(' ');
  if (e.type === 'StripeCardError' || status === 402) {
    const refs = e.payment_intent?.id ? { payment: e.payment_intent.id, charge: e.charge ?? null } : undefined;
    if (e.code === 'processing_error') return { ...notProcessed(), acquirer };
    const code = declineCodeOf(e.decline_code, e.code);
    const threeDS: ThreeDSResult = code === 'authentication_failed' ? 'challenge_failed' : 'not_required';
    const pi = e.payment_intent;
    const money =
      pi?.amount !== undefined && pi.currency ? { money: { amount: pi.amount, currency: pi.currency } } : {};
    return { ...declined(issuerOfMethod(e.payment_method), code, threeDS, refs), acquirer, ...money };
  }
  // The same Idempotency-Key was already used with another body: the first may have charged.
  if (e.type === 'StripeIdempotencyError') return { ...unknownOutcome(), acquirer };
  if (status !== undefined && status >= 400 && status < 500 && status !== 409 && status !== 429) {
    return { ...notProcessed(), acquirer };
  }
  // Timeouts, dropped connections, 5xx, 409 (same key in progress), 429, unreadable answers.
  return { ...unknownOutcome(), acquirer: acquirer || e.type || 'no answer' };
}
