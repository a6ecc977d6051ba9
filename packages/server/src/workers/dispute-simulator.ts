import type { Logger } from 'pino';
import { SECOND } from '../clock.ts';
import { recordDueSandboxDisputes } from '../domain/chargebacks.ts';
import type { Services } from '../services.ts';
import { FailureLog } from './failure-log.ts';
import { periodic } from './periodic.ts';

export interface DisputeSimulator {
  /** One pass now; answers how many chargebacks it recorded. Passes never overlap. */
  runOnce(): Promise<number>;
  /** Stops the timer and waits for a pass under way, so the database can be closed after it. */
  stop(): Promise<void>;
}

/** Disputes recorded per pass; the rest wait for the next pass. */
const BATCH = 100;

/**
 * Plays the card network for the sandbox chargeback card: once a settled transaction's
 * dispute_at has passed, it records the chargeback through the same use case a live
 * connector's dispute notice calls. Several processes may run it: each chargeback is
 * recorded once (compare-and-set on chargeback = 0).
 */
export function startDisputeSimulator(services: Services, logger: Logger, everyMs = SECOND): DisputeSimulator {
  const failures = new FailureLog(logger, 'dispute simulator failed', 'dispute simulator works again');
  const pass = async () => {
    try {
      const recorded = await recordDueSandboxDisputes(services.repos.chargebacks, services.clock, BATCH);
      if (recorded > 0) logger.info({ recorded }, 'sandbox chargebacks recorded');
      failures.succeeded();
      return recorded;
    } catch (error) {
      failures.failed(error);
      return 0;
    }
  };
  return periodic(everyMs, pass);
}
