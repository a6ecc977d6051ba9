import { DAY, HOUR, MINUTE, SECOND } from '../../clock.ts';

/**
 * Waits after each failed attempt (docs/webhooks.md): the Standard Webhooks / Svix schedule,
 * then 10 hours apart, with a last attempt exactly 3 days after the first: 13 attempts in all.
 */
export const RETRY_DELAYS_MS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

/** A delivery is retried for this long after its first attempt, then given up. */
export const RETRY_WINDOW_MS = 3 * DAY;

/** An endpoint that has failed every attempt for this long is disabled, and the merchant told. */
export const DISABLE_AFTER_FAILING_MS = 3 * DAY;

/**
 * When to try again after `attemptsMade` attempts that all failed, the first at
 * `firstAttemptAt`, the latest at `now`; null to give up.
 */
export function nextAttemptAt(attemptsMade: number, firstAttemptAt: number, now: number): number | null {
  const deadline = firstAttemptAt + RETRY_WINDOW_MS;
  if (now >= deadline) return null;
  const delay = RETRY_DELAYS_MS[attemptsMade - 1] ?? RETRY_WINDOW_MS;
  return Math.min(now + delay, deadline);
}
