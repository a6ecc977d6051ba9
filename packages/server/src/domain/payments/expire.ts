import { intentEvent, type PaymentIntent } from '../intents.ts';
import { type Transaction, TX_STATUS } from '../transactions.ts';
import type { ChallengeDeps } from './challenge.ts';
import { recordOutcome } from './outcome.ts';
import { RECONCILE_AFTER_MS } from './reconcile.ts';

/**
 * Moves intents past their 7-day window to `expired`. An intent whose attempt waits on a
 * 3-D Secure challenge has that attempt failed first (the shopper walked away); one whose
 * attempt is with the processor, or of unknown outcome, is left for a later sweep. Pages
 * are read by (expires_at, id), so any number of those left behind never hide the rest.
 */
export async function expireDueIntents(deps: ChallengeDeps, batch = 100): Promise<PaymentIntent[]> {
  const now = deps.clock.now();
  const expired: PaymentIntent[] = [];
  let after: PaymentIntent | undefined;
  for (;;) {
    const page = await deps.store.dueForExpiryAcrossAccounts(now, batch, after);
    for (const intent of page) {
      const done = await expireOne(deps, intent, now);
      if (done) expired.push(done);
    }
    after = page.at(-1);
    if (page.length < batch) return expired;
  }
}

async function expireOne(deps: ChallengeDeps, due: PaymentIntent, now: number): Promise<PaymentIntent | null> {
  let intent: PaymentIntent | null = due;
  if (intent.status === 'processing') intent = await abandonChallenge(deps, intent);
  if (!intent) return null;
  return deps.store.expire(intent, now, (after) => [intentEvent('payment_intent.expired', after)]);
}

/**
 * Sandbox attempts still pending a minute after they began were cut short by a stopped
 * process (the simulator answers at once): record the outcome the sandbox gives them, so
 * their intents succeed or fail (and can expire) instead of staying `processing`.
 */
export async function settleInterruptedSandboxAttempts(
  deps: ChallengeDeps,
  interruptedAfterMs = RECONCILE_AFTER_MS,
  batch = 100,
): Promise<Transaction[]> {
  const settled: Transaction[] = [];
  const sandbox = deps.processors.byName('sandbox');
  if (!sandbox?.recoverInterrupted) return settled;
  const startedBefore = deps.clock.now() - interruptedAfterMs;
  let after: { createdAt: number; id: string } | null = null;
  for (;;) {
    const page = await deps.store.pendingAttemptsAcrossAccounts({
      processors: ['sandbox'],
      startedBefore,
      after,
      limit: batch,
    });
    for (const attempt of page.filter((tx) => !tx.challengeToken)) {
      const outcome = sandbox.recoverInterrupted(attempt);
      const intent = outcome && (await deps.intents.find(attempt.accountId, attempt.paymentIntentId));
      if (outcome && intent) settled.push((await recordOutcome(deps, intent, attempt, outcome)).transaction);
    }
    const last = page.at(-1);
    if (!last || page.length < batch) return settled;
    after = { createdAt: last.createdAt, id: last.id };
  }
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
