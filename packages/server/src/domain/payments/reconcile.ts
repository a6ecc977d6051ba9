import { MINUTE } from '../../clock.ts';
import type { Mode } from '../intents.ts';
import { type Transaction, transactionEvent } from '../transactions.ts';
import type { Processor, ProcessorRegistry } from './ports.ts';
import { type SettleDeps, settleAttempt } from './settle.ts';

export interface ReconcileDeps extends SettleDeps {
  /** An attempt still unknown this long after it started is flagged for an operator's review. */
  reviewAfterMs: number;
  /** RECONCILE_AFTER_MS unless shortened for tests (OBOLUS_TEST_RECOVERY_MS). */
  reconcileAfterMs?: number;
}

/**
 * An attempt is asked about once it is this old. Every processor call ends well before
 * (a live connector's deadline is at most 30 s), so a pending attempt this old is not
 * waiting on a call of ours: its answer was lost (timeout, dropped connection, a crash).
 */
export const RECONCILE_AFTER_MS = MINUTE;
/** Default of OBOLUS_REVIEW_UNKNOWN_AFTER_MS. */
export const DEFAULT_REVIEW_AFTER_MS = 60 * MINUTE;
const PAGE = 50;
/** A pass reads this many pending attempts at most; the rest wait for the next pass. */
const MAX_PER_PASS = 500;

export interface ReconcileReport {
  /** Attempts whose outcome is now recorded: their intents succeeded or failed. */
  settled: Transaction[];
  /** Approvals of attempts recorded as failed, given back at the acquirer. */
  reversed: Transaction[];
  /** What the acquirer said did not match the attempt (amount, currency, payment): nothing settled, raised for review. */
  refused: Transaction[];
  /** Attempts the processor could not answer for yet: asked again next pass. */
  stillUnknown: Transaction[];
  /** Of those, the ones flagged for review in this pass (event payment_attempt.requires_review). */
  flaggedForReview: Transaction[];
}

/**
 * Settles attempts whose outcome is unknown by asking their processor what became of
 * them, and records the answer through the same code as a confirm (compare-and-set, with
 * its events), so a late answer and a reconciliation can never both count. An attempt
 * still unknown after `reviewAfterMs` is flagged for review, once, and still asked about.
 */
export async function reconcilePendingAttempts(deps: ReconcileDeps, signal?: AbortSignal): Promise<ReconcileReport> {
  const report: ReconcileReport = { settled: [], reversed: [], refused: [], stillUnknown: [], flaggedForReview: [] };
  const askable = askableProcessors(deps.processors);
  const startedBefore = deps.clock.now() - (deps.reconcileAfterMs ?? RECONCILE_AFTER_MS);
  let after: { createdAt: number; id: string } | null = null;
  for (let read = 0; read < MAX_PER_PASS; read += PAGE) {
    const page = await deps.store.pendingAttemptsAcrossAccounts({
      processors: [...askable.keys()],
      startedBefore,
      after,
      limit: PAGE,
    });
    // An open challenge waits on the shopper, not on us: the expiry sweep ends it.
    for (const attempt of page.filter((tx) => !tx.challengeToken)) {
      // Lookups are sequential and may each wait a timeout: a stopping process does not wait for them all.
      if (signal?.aborted) return report;
      await reconcileOne(deps, askable, attempt, report);
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE) break;
    after = { createdAt: last.createdAt, id: last.id };
  }
  return report;
}

async function reconcileOne(
  deps: ReconcileDeps,
  askable: Map<string, Processor>,
  attempt: Transaction,
  report: ReconcileReport,
): Promise<void> {
  const processor = askable.get(attempt.processor);
  const ref = { attemptId: attempt.id, paymentRef: attempt.processorPaymentRef };
  const outcome = processor?.lookup ? await processor.lookup(ref).catch(() => null) : null;
  const settlement = outcome ? await settleAttempt(deps, attempt, outcome) : null;
  if (settlement?.kind === 'settled') report.settled.push(settlement.transaction);
  else if (settlement?.kind === 'reversed') report.reversed.push(settlement.transaction);
  else if (settlement?.kind === 'refused') report.refused.push(settlement.transaction);
  else await stillUnknown(deps, attempt, report);
}

async function stillUnknown(deps: ReconcileDeps, attempt: Transaction, report: ReconcileReport): Promise<void> {
  report.stillUnknown.push(attempt);
  const now = deps.clock.now();
  if (attempt.reviewRequestedAt !== null || now - attempt.createdAt < deps.reviewAfterMs) return;
  const flagged = { ...attempt, reviewRequestedAt: now };
  const event = {
    ...transactionEvent('transaction.updated', flagged),
    type: 'payment_attempt.requires_review' as const,
  };
  if (await deps.store.flagForReview(attempt, now, [event])) report.flaggedForReview.push(flagged);
}

/** The processors that can say what became of an attempt, by name. The sandbox cannot (it never loses one). */
function askableProcessors(registry: ProcessorRegistry): Map<string, Processor> {
  const modes: Mode[] = ['live', 'sandbox'];
  const askable = new Map<string, Processor>();
  for (const processor of modes.map((mode) => registry.forMode(mode))) {
    if (processor?.lookup) askable.set(processor.name, processor);
  }
  return askable;
}
