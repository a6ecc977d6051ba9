import type { Logger } from 'pino';
import { SECOND } from '../clock.ts';
import { followUpAttempts } from '../domain/payments/follow-ups.ts';
import { RECONCILE_AFTER_MS, type ReconcileReport, reconcilePendingAttempts } from '../domain/payments/reconcile.ts';
import { sendUnsentRefunds } from '../domain/refunds.ts';
import type { Services } from '../services.ts';
import { paymentDeps, refundDeps } from '../services.ts';
import { FailureLog } from './failure-log.ts';
import { periodic } from './periodic.ts';

export interface Reconciler {
  /** One pass now. Passes never overlap. */
  runOnce(): Promise<ReconcileReport>;
  /** Stops the timer and waits for a pass under way (its current lookup only), so the database can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Every 30 s, asks the live connector what became of attempts whose outcome was lost
 * (decision 0041), gives back the payments finished attempts must not keep (late approvals,
 * duplicates; decision 0192), then sends again the refunds it never answered. Several
 * processes may run it: an attempt or a refund is settled once (compare-and-set), asking
 * twice is only a read at the acquirer, and refunds and reversals are sent under their own
 * idempotency keys.
 */
export function startReconciler(
  services: Services,
  logger: Logger,
  everyMs = services.config.recovery?.reconcileEveryMs ?? 30 * SECOND,
): Reconciler {
  const failures = new FailureLog(logger, 'reconciliation failed', 'reconciliation works again');
  const pass = async (signal: AbortSignal): Promise<ReconcileReport> => {
    try {
      // Attempts and refunds alike: every call of ours has ended by this age.
      const reconcileAfterMs = services.config.recovery?.interruptedAfterMs ?? RECONCILE_AFTER_MS;
      const deps = { ...paymentDeps(services), reviewAfterMs: services.config.reviewUnknownAfterMs, reconcileAfterMs };
      const report = await reconcilePendingAttempts(deps, signal);
      logIds('info', 'attempts', report.settled, 'reconciled payment attempts');
      logIds('warn', 'attempts', report.reversed, 'late approvals given back to shoppers');
      for (const tx of report.flaggedForReview) {
        logger.error(
          { attempt_id: tx.id, account_id: tx.accountId, processor: tx.processor },
          'payment attempt of unknown outcome needs review',
        );
      }
      logIds('warn', 'attempts', report.stillUnknown, 'payment attempts still of unknown outcome');
      for (const tx of report.refused) {
        logger.warn(
          { attempt_id: tx.id, account_id: tx.accountId, processor: tx.processor, reason: tx.reviewReason },
          'the acquirer named another amount or payment for this attempt: nothing settled, raised for review',
        );
      }
      await followUps(deps, signal);
      await resendRefunds(reconcileAfterMs, signal);
      failures.succeeded();
      return report;
    } catch (error) {
      failures.failed(error);
      return { settled: [], reversed: [], refused: [], stillUnknown: [], flaggedForReview: [] };
    }
  };
  const followUps = async (deps: ReturnType<typeof paymentDeps>, signal: AbortSignal) => {
    try {
      const report = await followUpAttempts(deps, signal);
      logIds('warn', 'attempts', report.givenBack, 'payments we must not keep given back at the acquirer');
      logIds('warn', 'attempts', report.owing, 'payments still to give back at the acquirer');
    } catch (error) {
      logger.error({ err: error }, 'following up attempts at the acquirer failed');
    }
  };
  const resendRefunds = async (olderThanMs: number, signal: AbortSignal) => {
    try {
      const refunds = await sendUnsentRefunds(refundDeps(services), services.clock, olderThanMs, signal);
      logIds('info', 'refunds', refunds.answered, 'unanswered refunds sent again and answered');
      logIds('warn', 'refunds', refunds.unanswered, 'refunds still unanswered by the acquirer');
    } catch (error) {
      logger.error({ err: error }, 'sending unanswered refunds again failed');
    }
  };
  /** One line for a pass's objects of one kind: how many, and the first 20 ids. */
  const logIds = (level: 'info' | 'warn', field: string, objects: Array<{ id: string }>, message: string) => {
    if (objects.length === 0) return;
    logger[level]({ count: objects.length, [field]: objects.slice(0, 20).map((o) => o.id) }, message);
  };
  return periodic(everyMs, pass);
}
