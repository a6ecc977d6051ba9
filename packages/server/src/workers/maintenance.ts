import type { Logger } from 'pino';
import { MINUTE } from '../clock.ts';
import { IDEMPOTENCY_RETENTION_MS } from '../domain/idempotency.ts';
import type { Services } from '../http/services.ts';

/** Periodic housekeeping of one process: drops idempotency keys past their 24 h retention and rate counters past their window. */
export function startMaintenance(services: Services, logger: Logger, everyMs = 10 * MINUTE): { stop(): void } {
  const run = async () => {
    try {
      const cutoff = services.clock.now() - IDEMPOTENCY_RETENTION_MS;
      const removed = await services.repos.idempotency.pruneBefore(cutoff);
      if (removed > 0) logger.info({ removed }, 'pruned expired idempotency keys');
      await services.repos.rateCounters.pruneBefore(services.clock.now());
    } catch (error) {
      logger.error({ err: error }, 'maintenance failed');
    }
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
