import type { Logger } from 'pino';
import { SECOND } from '../clock.ts';
import { failAbandonedChallenges } from '../domain/payments/abandoned-challenges.ts';
import { expireDueIntents } from '../domain/payments/expire.ts';
import type { Services } from '../http/services.ts';
import { paymentDeps } from '../services.ts';

/**
 * Every 30 s, 3-D Secure challenges open for 15 minutes fail, and intents past their 7-day
 * window become `expired` (several processes may run it).
 */
export function startExpirySweeper(services: Services, logger: Logger, everyMs = 30 * SECOND): { stop(): void } {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const abandoned = await failAbandonedChallenges(paymentDeps(services));
      if (abandoned.length > 0) logger.info({ count: abandoned.length }, 'failed abandoned 3-D Secure challenges');
      const expired = await expireDueIntents(paymentDeps(services));
      if (expired.length > 0) logger.info({ count: expired.length }, 'expired payment intents');
    } catch (error) {
      logger.error({ err: error }, 'expiry sweep failed');
    } finally {
      running = false;
    }
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
