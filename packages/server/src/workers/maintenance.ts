import type { Logger } from 'pino';
import { MINUTE } from '../clock.ts';
import { auditRetentionMs } from '../domain/audit.ts';
import { CHECKOUT_START_WINDOW_MS } from '../domain/hosted-checkout.ts';
import { IDEMPOTENCY_RETENTION_MS } from '../domain/idempotency.ts';
import type { Services } from '../services.ts';
import { refreshPlannerStatistics } from '../store/planner-statistics.ts';
import { type Periodic, periodic } from './periodic.ts';

/** Periodic housekeeping of one process: see maintainOnce. `stop()` waits for a pass under way. */
export function startMaintenance(services: Services, logger: Logger, everyMs = 10 * MINUTE): Periodic<void> {
  return periodic(everyMs, () => maintainOnce(services, logger));
}

/**
 * Drops idempotency keys past their 24 h retention, and card-ciphertext uses past the age
 * at which the ciphertext would be refused anyway (a minute later, for clocks that differ),
 * and hosted-checkout and rate counters of windows that have ended, and audit events past
 * their retention; refreshes SQLite's planner statistics.
 */
export async function maintainOnce(services: Services, logger: Logger): Promise<void> {
  try {
    const now = services.clock.now();
    const removed = await services.repos.idempotency.pruneBefore(now - IDEMPOTENCY_RETENTION_MS);
    if (removed > 0) logger.info({ removed }, 'pruned expired idempotency keys');
    const uses = await services.repos.cardCiphertextUses.pruneExpired(now - MINUTE);
    if (uses > 0) logger.info({ removed: uses }, 'pruned expired card-ciphertext uses');
    await services.repos.checkoutStarts.pruneBefore(now - CHECKOUT_START_WINDOW_MS);
    await services.repos.rateCounters.pruneBefore(now);
    // The audit trail past its retention (OBOLUS_AUDIT_RETENTION_DAYS, at least a year).
    const audited = await services.repos.audit.pruneBefore(now - auditRetentionMs(services.config.auditRetentionDays));
    if (audited > 0) logger.info({ removed: audited }, 'pruned audit events past their retention');
    // The SQLite planner's statistics, for a store that grew since (decision 0262).
    if (services.database.sqlite) refreshPlannerStatistics(services.database.sqlite.writer);
  } catch (error) {
    logger.error({ err: error }, 'maintenance failed');
  }
}
