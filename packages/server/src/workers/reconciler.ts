import type { Logger } from 'pino';
import { SECOND } from '../clock.ts';
import { RECONCILE_AFTER_MS, type ReconcileReport, reconcilePendingAttempts } from '../domain/payments/reconcile.ts';
import { sendUnsentRefunds } from '../domain/refunds.ts';
import type { Services } from '../http/services.ts';
import { paymentDeps, refundDeps } from '../services.ts';

export interface Reconciler {
  /** One pass now. Passes never overlap. */
  runOnce(): Promise<ReconcileReport>;
  /** Stops the timer and waits for a pass under way (its current lookup only), so the database can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Every 30 s, asks the live connector what became of attempts whose outcome was lost
 * (decision 0041), then sends again the refunds it never answered. Several processes may
 * run it: an attempt or a refund is settled once (compare-and-set), asking twice is only a
 * read at the acquirer, and a refund is sent under its own id as idempotency key.
 */
export function startReconciler(
  services: Services,
  logger: Logger,
  everyMs = services.config.recovery?.reconcileEveryMs ?? 30 * SECOND,
): Reconciler {
  let running: Promise<ReconcileReport> | undefined;
  const stopping = new AbortController();
  const pass = async (): Promise<ReconcileReport> => {
    try {
      const deps = {
        ...paymentDeps(services),
        reviewAfterMs: services.config.reviewUnknownAfterMs,
        reconcileAfterMs: services.config.recovery?.interruptedAfterMs,
      };
      const report = await reconcilePendingAttempts(deps, stopping.signal);
      if (report.settled.length > 0) {
        const ids = report.settled.map((tx) => tx.id);
        logger.info({ count: ids.length, attempts: ids.slice(0, 20) }, 'reconciled payment attempts');
      }
      if (report.reversed.length > 0) {
        const ids = report.reversed.map((tx) => tx.id);
        logger.warn({ count: ids.length, attempts: ids.slice(0, 20) }, 'late approvals given back to shoppers');
      }
      for (const tx of report.flaggedForReview) {
        logger.error(
          { attempt_id: tx.id, account_id: tx.accountId, processor: tx.processor },
          'payment attempt of unknown outcome needs review',
        );
      }
      if (report.stillUnknown.length > 0) {
        const ids = report.stillUnknown.map((tx) => tx.id);
        logger.warn({ count: ids.length, attempts: ids.slice(0, 20) }, 'payment attempts still of unknown outcome');
      }
      const olderThanMs = services.config.recovery?.interruptedAfterMs ?? RECONCILE_AFTER_MS;
      const refunds = await sendUnsentRefunds(refundDeps(services), services.clock, olderThanMs, stopping.signal);
      if (refunds.answered.length > 0) {
        const ids = refunds.answered.map((r) => r.id);
        logger.info({ count: ids.length, refunds: ids.slice(0, 20) }, 'unanswered refunds sent again and answered');
      }
      if (refunds.unanswered.length > 0) {
        const ids = refunds.unanswered.map((r) => r.id);
        logger.warn({ count: ids.length, refunds: ids.slice(0, 20) }, 'refunds still unanswered by the acquirer');
      }
      return report;
    } catch (error) {
      logger.error({ err: error }, 'reconciliation failed');
      return { settled: [], reversed: [], stillUnknown: [], flaggedForReview: [] };
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
    stopping.abort();
    await running;
  };
  return { runOnce, stop };
}
