import type { Logger } from 'pino';
import type { Services } from '../services.ts';
import { periodic } from './periodic.ts';

/**
 * On PostgreSQL, every `syncMs` adds this process's API request counts to the shared
 * per-second totals and reads everyone's back (decision 0150). Nothing runs on SQLite,
 * where one process counts everything in memory, or when every limit is off.
 */
export function startRateLimitSync(services: Services, logger: Logger): { stop(): Promise<void> } {
  const { apiRateLimits } = services.config;
  const anyLimit = apiRateLimits.live > 0 || apiRateLimits.sandbox > 0 || apiRateLimits.address > 0;
  if (services.database.engine === 'sqlite' || !anyLimit) return { stop: async () => {} };
  let failing = false;
  let prunedAt = 0;
  const pass = async () => {
    try {
      await services.apiWindows.sync();
      // Windows of a second pile up fast: drop the ended ones every 10 s, not every 10 minutes.
      const now = services.clock.now();
      if (now - prunedAt >= 10_000) {
        prunedAt = now;
        await services.repos.rateCounters.pruneBefore(now);
      }
      if (failing) logger.info('rate-limit counters are synced again');
      failing = false;
    } catch (error) {
      // Counts stay in memory and go with the next sync; meanwhile each process keeps to its share.
      if (!failing) logger.warn({ err: error }, 'rate-limit counters could not be synced');
      failing = true;
    }
  };
  const loop = periodic(apiRateLimits.syncMs, pass, { runAtStart: true });
  return {
    stop: async () => {
      await loop.stop();
      await services.apiWindows.idle();
    },
  };
}
