import type { Logger } from 'pino';
import { SECOND } from '../clock.ts';
import { failAbandonedChallenges } from '../domain/payments/abandoned-challenges.ts';
import { voidExpiredAuthorizations } from '../domain/payments/cancel.ts';
import { expireDueIntents, settleInterruptedSandboxAttempts } from '../domain/payments/expire.ts';
import type { Services } from '../services.ts';
import { paymentDeps } from '../services.ts';
import { FailureLog } from './failure-log.ts';
import { periodic } from './periodic.ts';

export interface SweepResult {
  settled: number;
  abandoned: number;
  expired: number;
  /** Authorizations of manual intents not captured in time, voided (decision 0241). */
  voided: number;
}

export interface ExpirySweeper {
  /**
   * One pass now: sandbox attempts cut short are settled, 3-D Secure challenges open for 15
   * minutes fail, then due intents expire and authorizations not captured in time are voided.
   * Passes never overlap.
   */
  runOnce(): Promise<SweepResult>;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

/** Every 30 s (OBOLUS_TEST_RECOVERY_MS in tests), one pass of runOnce (several processes may run it). */
export function startExpirySweeper(
  services: Services,
  logger: Logger,
  everyMs = services.config.recovery?.sweepEveryMs ?? 30 * SECOND,
): ExpirySweeper {
  const interruptedAfterMs = services.config.recovery?.interruptedAfterMs;
  const failures = new FailureLog(logger, 'expiry sweep failed', 'expiry sweeps work again');
  const pass = async (): Promise<SweepResult> => {
    try {
      const deps = paymentDeps(services);
      const settled = (await settleInterruptedSandboxAttempts(deps, interruptedAfterMs)).length;
      if (settled > 0) logger.warn({ count: settled }, 'settled sandbox attempts interrupted by a stopped process');
      const abandoned = (await failAbandonedChallenges(deps)).length;
      if (abandoned > 0) logger.info({ count: abandoned }, 'failed abandoned 3-D Secure challenges');
      const expired = (await expireDueIntents(deps)).length;
      if (expired > 0) logger.info({ count: expired }, 'expired payment intents');
      const voided = (await voidExpiredAuthorizations(deps)).length;
      if (voided > 0) logger.info({ count: voided }, 'voided authorizations not captured in time');
      failures.succeeded();
      return { settled, abandoned, expired, voided };
    } catch (error) {
      failures.failed(error);
      return { settled: 0, abandoned: 0, expired: 0, voided: 0 };
    }
  };
  return periodic(everyMs, pass);
}
