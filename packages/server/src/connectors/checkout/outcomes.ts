import { declined, notProcessed, unknownOutcome } from '../../domain/payments/declines.ts';
import type { AuthorizeOutcome, DeclineCode, IssuerInfo, ThreeDSResult } from '../../domain/payments/ports.ts';
import type { CkoPayment, CkoSdkError } from './wire.ts';

/**
 * What Checkout.com's answers mean for the money (docs/live.md, decision 0130). Pure
 * functions: the SDK calls are in processor.ts.
 */

/** response_code -> the decline the shopper is told. Other 20xxx (soft), 30xxx (hard), 4xxxx (risk): card_declined. */
const DECLINES: Record<string, DeclineCode> = {
  '20051': 'insufficient_funds',
  '20054': 'expired_card',
  '30033': 'expired_card',
  '20082': 'incorrect_cvc',
  '20087': 'incorrect_cvc',
  '20150': 'authentication_failed',
  '20151': 'authentication_failed',
};

export const declineCodeOf = (responseCode: string | undefined): DeclineCode =>
  (responseCode && DECLINES[responseCode]) || 'card_declined';

/** The card as the payment's source describes it; every detail optional (issuer-details.ts tidies them). */
export function issuerOf(payment: CkoPayment): IssuerInfo | null {
  const source = payment.source;
  if (source?.type !== 'card') return null;
  return {
    brand: source.scheme ?? null,
    bank: source.issuer ?? null,
    country: source.issuer_country ?? null,
    funding: source.card_type ? source.card_type.toLowerCase() : null,
  };
}

function threeDSOf(payment: CkoPayment, challenged: boolean): ThreeDSResult {
  const secure = payment['3ds'];
  if (!secure) return challenged ? 'challenge_passed' : 'not_required';
  const passed = secure.authentication_response === undefined || secure.authentication_response === 'Y';
  if (challenged || secure.challenged) return passed ? 'challenge_passed' : 'challenge_failed';
  return passed ? 'frictionless' : 'challenge_failed';
}

const APPROVED = new Set(['Authorized', 'Captured', 'Partially Captured', 'Refunded', 'Partially Refunded']);

/**
 * A payment's state -> our outcome. `challenged`: the shopper went through a 3-D Secure
 * page for it. A state that does not say whether money moved is `unknown`.
 */
export function outcomeOfPayment(payment: CkoPayment, challenged = false): AuthorizeOutcome {
  const refs = { payment: payment.id, charge: null };
  const issuer = issuerOf(payment);
  if (APPROVED.has(payment.status) && payment.approved !== false) {
    const threeDS = threeDSOf(payment, challenged);
    return { kind: 'approved', issuer, authorizationCode: payment.auth_code ?? null, threeDS, refs };
  }
  if (payment.status === 'Declined') {
    const failed3DS = payment['3ds']?.authentication_response;
    const code = failed3DS && failed3DS !== 'Y' ? 'authentication_failed' : declineCodeOf(payment.response_code);
    const threeDS = code === 'authentication_failed' ? 'challenge_failed' : threeDSOf(payment, challenged);
    return declined(issuer, code, threeDS, refs);
  }
  if (payment.status === 'Pending') {
    const url = payment._links?.redirect?.href;
    if (!url || challenged) return unknownOutcome(refs);
    return { kind: 'challenge', issuer, challengeRef: payment.id, redirectUrl: url, refs };
  }
  // Voided, Canceled, Expired, Card Verified: nothing was taken.
  if (payment.status === 'Voided' || payment.status === 'Canceled' || payment.status === 'Expired') {
    return notProcessed();
  }
  return unknownOutcome(refs);
}

/**
 * A failed SDK call -> our outcome. Only 401 and 422 (and other 4xx that prove the request
 * was refused) are failures; timeouts, dropped connections, 5xx, 409 and 429 are unknown.
 */
export function outcomeOfError(error: unknown): AuthorizeOutcome {
  // The SDK's own check refused the request before sending it.
  if ((error as CkoSdkError | null)?.name === 'ValueError') return notProcessed();
  const status = (error as CkoSdkError | null)?.http_code;
  if (status !== undefined && status >= 400 && status < 500 && status !== 409 && status !== 429) {
    return notProcessed();
  }
  return unknownOutcome();
}

/** A lost answer worth one more try with the same Cko-Idempotency-Key: no status, 5xx, 409. */
export function isRetryable(error: unknown): boolean {
  if ((error as CkoSdkError | null)?.name === 'ValueError') return false;
  const status = (error as CkoSdkError | null)?.http_code;
  return status === undefined || status >= 500 || status === 409;
}
