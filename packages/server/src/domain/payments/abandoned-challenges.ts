import { MINUTE } from '../../clock.ts';
import type { Mode } from '../intents.ts';
import type { Transaction } from '../transactions.ts';
import type { ChallengeDeps } from './challenge.ts';
import { recordOutcome } from './outcome.ts';

/**
 * A shopper who closes the tab during 3-D Secure leaves the attempt pending, and a pending
 * attempt keeps the intent `processing`: no retry possible. After this long the attempt
 * fails as a declined authentication and the intent is payable again (docs/decisions/0081).
 */
export const CHALLENGE_TIMEOUT_MS = 15 * MINUTE;
const PAGE = 50;
const MAX_PER_PASS = 500;

/** Fails every challenge open for longer than CHALLENGE_TIMEOUT_MS; answers the attempts it ended. */
export async function failAbandonedChallenges(deps: ChallengeDeps): Promise<Transaction[]> {
  const modes: Mode[] = ['sandbox', 'live'];
  const processors = modes.flatMap((mode) => deps.processors.forMode(mode)?.name ?? []);
  const startedBefore = deps.clock.now() - CHALLENGE_TIMEOUT_MS;
  const ended: Transaction[] = [];
  let after: { createdAt: number; id: string } | null = null;
  for (let read = 0; read < MAX_PER_PASS; read += PAGE) {
    const page = await deps.store.pendingAttemptsAcrossAccounts({ processors, startedBefore, after, limit: PAGE });
    for (const attempt of page.filter((tx) => tx.challengeToken)) {
      const tx = await failChallenge(deps, attempt);
      if (tx) ended.push(tx);
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE) break;
    after = { createdAt: last.createdAt, id: last.id };
  }
  return ended;
}

async function failChallenge(deps: ChallengeDeps, attempt: Transaction): Promise<Transaction | null> {
  const intent = await deps.intents.find(attempt.accountId, attempt.paymentIntentId);
  if (!intent) return null;
  const outcome = await recordOutcome(deps, intent, attempt, {
    kind: 'declined',
    issuer: null,
    code: 'authentication_failed',
    message: '3-D Secure authentication was not completed within 15 minutes. Try again.',
    threeDS: 'challenge_failed',
  });
  // Another pass (this process's or another's) may have failed it first: only the writer reports it.
  return outcome.won && outcome.status === 'failed' ? outcome.transaction : null;
}
