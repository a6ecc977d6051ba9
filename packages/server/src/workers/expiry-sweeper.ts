import type { Logger } from 'pino';
import { SECOND } from '../clock.ts';
import { expireDueIntents, settleInterruptedSandboxAttempts } from '../domain/payments/expire.ts';
import type { Services } from '../http/services.ts';
import { paymentDeps } from '../services.ts';

export interface ExpirySweeper {
  /** One pass now: sandbox attempts cut short are settled, then due intents expire. Passes never overlap. */
  runOnce(): Promise<{ settled: number; expired: number }>;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

/** Every 30 s, intents past their 7-day window become `expired` (several processes may run it). */
export function startExpirySweeper(services: Services, logger: Logger, everyMs = 30 * SECOND): ExpirySweeper {
  let running: Promise<{ settled: number; expired: number }> | undefined;
  const pass = async () => {
    try {
      const deps = paymentDeps(services);
      const settled = (await settleInterruptedSandboxAttempts(deps)).length;
      if (settled > 0) logger.warn({ count: settled }, 'settled sandbox attempts interrupted by a stopped process');
      const expired = (await expireDueIntents(deps)).length;
      if (expired > 0) logger.info({ count: expired }, 'expired payment intents');
      return { settled, expired };
    } catch (error) {
      logger.error({ err: error }, 'expiry sweep failed');
      return { settled: 0, expired: 0 };
    }
  };
  const runOnce = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(runOnce, everyMs);
  timer.unref();
  const stop = async () => {
    clearInterval(timer);
    await running;
  };
  return { runOnce, stop };
}
