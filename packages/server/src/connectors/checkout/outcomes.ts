import { DeadlinePassed } from '../../domain/payments/acquirer-calls.ts';
import { declined, notProcessed, unknownOutcome } from '../../domain/payments/declines.ts';
import type {
  AuthorizeOutcome,
  DeclineCode,
  Funds,
  HeldPayment,
  IssuerInfo,
  ThreeDSResult,
} from '../../domain/payments/ports.ts';
import type { CkoPayment, CkoSdkError } from './wire.ts';

/**
 * What Checkout.com's answers mean for the money (docs/live.md, decisions 0130, 0194, 0195).
 * Pure functions: the SDK calls are in processor.ts and calls.ts.
 */

/**
 * response_code -> the decline the shopper is told. Other 20xxx (soft), 30xxx (hard), 4xxxx
 * (risk): card_declined. 20151 is a failed authentication; 20150 (the card does no 3-D
 * Secure) is a decline like any other: the shopper should use another card.
 */
const DECLINES: Record<string, DeclineCode> = {
  '20051': 'insufficient_funds',
  '20054': 'expired_card',
  '30033': 'expired_card',
  '20082': 'incorrect_cvc',
  '20087': 'incorrect_cvc',
  '20151': 'authentication_failed',
  '20154': 'authentication_failed',
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

/** 3-D Secure's transStatus: only N (not authenticated) and R (rejected) are failures; A (attempted) passes. */
const FAILED_AUTHENTICATION = new Set(['N', 'R']);

function threeDSOf(payment: CkoPayment, challenged: boolean): ThreeDSResult {
  const secure = payment['3ds'];
  if (!secure) return challenged ? 'challenge_passed' : 'not_required';
  // Not enrolled, or downgraded to a payment without 3-D Secure (attempt_n3d).
  if (secure.enrolled === 'N' || secure.downgraded) return 'not_required';
  const failed = FAILED_AUTHENTICATION.has(secure.authentication_response ?? '');
  if (challenged || secure.challenged) return failed ? 'challenge_failed' : 'challenge_passed';
  return failed ? 'challenge_failed' : 'frictionless';
}

const CAPTURED = new Set(['Captured', 'Partially Captured', 'Refunded', 'Partially Refunded', 'Paid']);
const NOTHING_TAKEN = new Set(['Voided', 'Cancelled', 'Canceled', 'Expired']);

/** Authorized: held, not yet taken (voidable). Captured and after, or Paid: taken. Otherwise not approved. */
export function fundsOf(payment: CkoPayment): Funds | null {
  if (payment.approved === false) return null;
  if (payment.status === 'Authorized') return 'authorized';
  return CAPTURED.has(payment.status) ? 'captured' : null;
}

/** The response code: on the answer to POST /payments, or on the Authorization action of GET /payments/{id}. */
const responseCodeOf = (payment: CkoPayment) =>
  payment.response_code ?? payment.actions?.find((a) => a.type === 'Authorization')?.response_code;

/** Checkout.com's own words for an answer, for operators (never card data). */
export const wordsOf = (payment: CkoPayment) => [payment.status, responseCodeOf(payment)].filter(Boolean).join(' ');

/**
 * A payment's state -> our outcome. `challenged`: the shopper went through a 3-D Secure
 * page for it. A state that does not say whether money moved is `unknown`.
 */
export function outcomeOfPayment(payment: CkoPayment, challenged = false): AuthorizeOutcome {
  const refs = { payment: payment.id, charge: null };
  const issuer = issuerOf(payment);
  const money =
    payment.amount !== undefined && payment.currency ? { amount: payment.amount, currency: payment.currency } : null;
  const notes = { acquirer: wordsOf(payment), ...(money ? { money } : {}) };
  const funds = fundsOf(payment);
  if (funds) {
    const threeDS = threeDSOf(payment, challenged);
    return { kind: 'approved', issuer, authorizationCode: payment.auth_code ?? null, threeDS, refs, funds, ...notes };
  }
  if (payment.status === 'Declined') {
    const failed3DS = FAILED_AUTHENTICATION.has(payment['3ds']?.authentication_response ?? '');
    // An issuer's decline keeps its own code, whatever 3-D Secure said before it.
    const code = failed3DS ? 'authentication_failed' : declineCodeOf(responseCodeOf(payment));
    const threeDS = code === 'authentication_failed' ? 'challenge_failed' : threeDSOf(payment, challenged);
    return { ...declined(issuer, code, threeDS, refs), ...notes };
  }
  if (payment.status === 'Pending') {
    const url = payment._links?.redirect?.href;
    if (!url || challenged) return { ...unknownOutcome(refs), ...notes };
    return { kind: 'challenge', issuer, challengeRef: payment.id, redirectUrl: url, refs, ...notes };
  }
  if (NOTHING_TAKEN.has(payment.status)) return { ...notProcessed(), acquirer: notes.acquirer };
  return { ...unknownOutcome(refs), ...notes };
}

/** Of several payments for one reference (newest first), the one that stands and the other approvals. */
export function standingOf(payments: CkoPayment[]): { payment: CkoPayment; others: CkoPayment[] } | null {
  const approved = payments.filter((p) => fundsOf(p) !== null);
  // The first approval made is the one kept; any later one is a duplicate to give back.
  const payment = approved.at(-1) ?? payments[0];
  if (!payment) return null;
  return { payment, others: approved.filter((p) => p !== payment) };
}

export const heldOf = (payment: CkoPayment): HeldPayment => ({
  payment: payment.id,
  approved: fundsOf(payment) !== null,
  funds: fundsOf(payment),
});

const statusOf = (error: unknown) => (error as CkoSdkError | null)?.http_code;

/**
 * Whether the answer may have been lost after Checkout.com processed the request: no answer
 * (a dropped connection, our deadline, the SDK's ApiTimeout, 408), or a 5xx. Checkout.com keeps
 * no answer but a 2xx under an idempotency key: such a request is looked up, never resent blindly.
 */
export function isLostAnswer(error: unknown): boolean {
  if (error instanceof DeadlinePassed) return true;
  if ((error as CkoSdkError | null)?.name === 'ValueError') return false;
  const status = statusOf(error);
  return status === undefined || status === 408 || status >= 500;
}

/**
 * A failed SDK call -> our outcome. Refused before any money could move: the SDK's own
 * ValueError, 401, 403, 404, 422 and other 4xx. Unknown: a lost answer (above), 429 (the same
 * key is being processed, or too many requests) and 409 (never documented: not trusted).
 */
export function outcomeOfError(error: unknown): AuthorizeOutcome {
  if ((error as CkoSdkError | null)?.name === 'ValueError') return notProcessed();
  const status = statusOf(error);
  if (isLostAnswer(error) || status === 429 || status === 409) return unknownOutcome();
  return notProcessed();
}
