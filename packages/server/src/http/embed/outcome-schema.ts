import { type Static, Type } from 'typebox';
import type { PaymentOutcome } from '../../domain/payments/outcome.ts';
import { ERROR_STATUS } from '../error-statuses.ts';

/** What confirm and challenge completion answer: one attempt's outcome (docs/widget-protocol.md). */
export const PaymentOutcomeOut = Type.Object({
  success: Type.Boolean(),
  status: Type.Enum(['succeeded', 'requires_capture', 'failed', 'requires_action', 'processing']),
  payment_intent: Type.String(),
  transaction_id: Type.String(),
  challenge_url: Type.Optional(Type.String()),
  error: Type.Optional(Type.Object({ type: Type.String(), code: Type.String(), message: Type.String() })),
});
export type PaymentOutcomeOut = Static<typeof PaymentOutcomeOut>;

export function toOutcomeOut(outcome: PaymentOutcome, baseUrl: string): PaymentOutcomeOut {
  const out: PaymentOutcomeOut = {
    // An authorization of a manual intent is the shopper's success: the merchant captures it later.
    success: outcome.status === 'succeeded' || outcome.status === 'requires_capture',
    status: outcome.status,
    payment_intent: outcome.intent.id,
    transaction_id: outcome.transaction.id,
  };
  if (outcome.status === 'requires_action') out.challenge_url = challengeUrl(baseUrl, outcome.challengeToken);
  if (outcome.status === 'failed') out.error = { type: ERROR_STATUS[outcome.error.code].type, ...outcome.error };
  return out;
}

/**
 * The sandbox ACS page of a challenge. The widget opens its path on its own origin, so a
 * widget loaded by another host name than the base URL still hears the page's answer.
 */
export const challengeUrl = (baseUrl: string, token: string) => `${baseUrl}/embed/v1/challenge/${token}`;
