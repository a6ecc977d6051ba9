import type { AuthorizeOutcome, AuthorizeRequest, DeclineCode, IssuerInfo, ThreeDSResult } from './processor.ts';
import { DECLINE_MESSAGES } from './sandbox.ts';

/**
 * The wire protocol of the live connector (docs/live-connector.md): the request body we
 * send and what an acquirer's answer means. Pure functions; the transport is elsewhere.
 */

/** What an acquirer decided about one attempt, once its answer has been read and checked. */
export type Decision =
  | { result: 'approved'; issuer: IssuerInfo; authorizationCode: string; threeDS: ThreeDSResult }
  | { result: 'declined'; issuer: IssuerInfo | null; code: DeclineCode; threeDS: ThreeDSResult }
  | { result: 'challenge' }
  | { result: 'error' }
  /** Lookups only: the acquirer has the attempt and has not decided yet. */
  | { result: 'pending' }
  /** Lookups only: the acquirer never processed this attempt and promises it never will. */
  | { result: 'not_found' };

/** The JSON body of POST /authorizations. The only place the card leaves this process. */
export function authorizationBody(request: AuthorizeRequest) {
  const { card } = request;
  return {
    attempt_id: request.attemptId,
    amount: request.amount,
    currency: request.currency,
    card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc, name: card.name },
    descriptor: request.descriptor,
  };
}

/**
 * Declines the shopper is told about as they are. Anything else an acquirer says (lost or
 * stolen card, suspected fraud, do not honor) is a plain `card_declined`: telling a card
 * tester why helps only the tester.
 */
const SHOPPER_DECLINE_CODES: readonly DeclineCode[] = [
  'card_declined',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
  'authentication_failed',
];
const THREE_DS_RESULTS: readonly ThreeDSResult[] = [
  'not_required',
  'frictionless',
  'challenge_passed',
  'challenge_failed',
];

export const NOT_PROCESSED_MESSAGE = 'The payment could not be processed. Nothing was charged; try again.';
export const UNKNOWN_MESSAGE = 'The acquirer did not answer; the outcome will be reconciled.';

/**
 * Reads an answer body about `attemptId`. Null when it is not a protocol answer about that
 * attempt: the caller then cannot tell what happened to the money.
 */
export function readDecision(body: unknown, attemptId: string): Decision | null {
  if (!isObject(body) || body.attempt_id !== attemptId) return null;
  const threeDS = threeDSOf(body.three_ds);
  switch (body.result) {
    case 'approved': {
      const issuer = issuerOf(body.issuer);
      const code = body.authorization_code;
      if (!issuer || typeof code !== 'string' || !/^[0-9A-Za-z]{1,32}$/.test(code) || !threeDS) return null;
      return { result: 'approved', issuer, authorizationCode: code, threeDS };
    }
    case 'declined': {
      const code = SHOPPER_DECLINE_CODES.find((c) => c === body.decline_code) ?? 'card_declined';
      return { result: 'declined', issuer: issuerOf(body.issuer), code, threeDS: threeDS ?? 'not_required' };
    }
    case 'challenge':
    case 'error':
    case 'pending':
    case 'not_found':
      return { result: body.result };
    default:
      return null;
  }
}

/** The port's outcome of a final decision (approved, declined, error). */
export function outcomeOfDecision(
  decision: Extract<Decision, { result: 'approved' | 'declined' | 'error' }>,
): AuthorizeOutcome {
  switch (decision.result) {
    case 'approved':
      return {
        kind: 'approved',
        issuer: decision.issuer,
        authorizationCode: decision.authorizationCode,
        threeDS: decision.threeDS,
      };
    case 'declined':
      return declined(decision.issuer, decision.code, decision.threeDS);
    case 'error':
      return notProcessed();
  }
}

export const notProcessed = (): AuthorizeOutcome => ({ kind: 'error', issuer: null, message: NOT_PROCESSED_MESSAGE });
export const unknownOutcome = (): AuthorizeOutcome => ({ kind: 'unknown', issuer: null, message: UNKNOWN_MESSAGE });

export function declined(issuer: IssuerInfo | null, code: DeclineCode, threeDS: ThreeDSResult): AuthorizeOutcome {
  return { kind: 'declined', issuer, code, message: DECLINE_MESSAGES[code], threeDS };
}

function issuerOf(value: unknown): IssuerInfo | null {
  if (!isObject(value)) return null;
  const { brand, bank, country } = value;
  if (typeof brand !== 'string' || brand.length < 1 || brand.length > 40) return null;
  if (typeof bank !== 'string' || bank.length > 100) return null;
  if (typeof country !== 'string' || !/^[A-Z]{2}$/.test(country)) return null;
  return { brand, bank, country };
}

/** Absent means no 3-D Secure took place; a value outside the list is not a protocol answer. */
function threeDSOf(value: unknown): ThreeDSResult | null {
  if (value === undefined || value === null) return 'not_required';
  return THREE_DS_RESULTS.find((r) => r === value) ?? null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
