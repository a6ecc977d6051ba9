import type { AuthorizeOutcome, DeclineCode, IssuerInfo, ProcessorRefs, ThreeDSResult } from './ports.ts';

/**
 * What the shopper is told for each decline code: the same words whichever acquirer declined;
 * plain words, never a file or a developer's term.
 */
export const DECLINE_MESSAGES: Record<DeclineCode, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The card has insufficient funds.',
  expired_card: 'The card has expired.',
  incorrect_cvc: "The card's security code is incorrect.",
  authentication_failed: '3-D Secure authentication failed.',
  card_not_test: 'This is a test payment: use a test card, such as 4242 4242 4242 4242.',
};

export const NOT_PROCESSED_MESSAGE = 'The payment could not be processed. Nothing was charged; try again.';
export const UNKNOWN_MESSAGE = 'The acquirer did not answer; the outcome will be reconciled.';

export function declined(
  issuer: IssuerInfo | null,
  code: DeclineCode,
  threeDS: ThreeDSResult,
  refs?: ProcessorRefs,
): Extract<AuthorizeOutcome, { kind: 'declined' }> {
  const outcome = { kind: 'declined' as const, issuer, code, message: DECLINE_MESSAGES[code], threeDS };
  return refs ? { ...outcome, refs } : outcome;
}

/** The acquirer refused the request before any money could move. */
export const notProcessed = (): AuthorizeOutcome => ({ kind: 'error', issuer: null, message: NOT_PROCESSED_MESSAGE });

/** Whether money moved is not known (decision 0041): reconciled later, never shown as a decline. */
export const unknownOutcome = (refs?: ProcessorRefs): AuthorizeOutcome => ({
  kind: 'unknown',
  issuer: null,
  message: UNKNOWN_MESSAGE,
  ...(refs ? { refs } : {}),
});
