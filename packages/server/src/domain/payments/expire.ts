import { intentEvent, type PaymentIntent } from '../intents.ts';
import { TX_STATUS } from '../transactions.ts';
import type { ChallengeDeps } from './challenge.ts';
import { recordOutcome } from './outcome.ts';

/**
 * Moves intents past their 7-day window to `expired`. An intent whose attempt waits on a
 * 3-D Secure challenge has that attempt failed first (the shopper walked away); one whose
 * attempt is with the processor right now is left for the next sweep.
 */
export async function expireDueIntents(deps: ChallengeDeps, batch = 100): Promise<PaymentIntent[]> {
  const now = deps.clock.now();
  const expired: PaymentIntent[] = [];
  for (let intent of await deps.store.dueForExpiry(now, batch)) {
    if (intent.status === 'processing') {
      const abandoned = await abandonChallenge(deps, intent);
      if (!abandoned) continue;
      intent = abandoned;
    }
    const done = await deps.store.expire(intent, now, (after) => [intentEvent('payment_intent.expired', after)]);
    if (done) expired.push(done);
  }
  return expired;
}

async function abandonChallenge(deps: ChallengeDeps, intent: PaymentIntent): Promise<PaymentIntent | null> {
  const tx = intent.lastTransactionId ? await deps.transactions.find(intent.accountId, intent.lastTransactionId) : null;
  if (!tx || tx.status !== TX_STATUS.pending || !tx.challengeToken) return null;
  const outcome = await recordOutcome(deps, intent, tx, {
    kind: 'declined',
    issuer: null,
    code: 'authentication_failed',
    message: '3-D Secure authentication was not completed.',
    threeDS: 'challenge_failed',
  });
  return outcome.intent.status === 'failed' ? outcome.intent : null;
}
