import type { Mode } from '../intents.ts';
import { type DuplicatePayment, type Transaction, TX_STATUS } from '../transactions.ts';
import { raisedForReview, recordFollowUp } from './matching.ts';
import type { HeldPayment, Processor, ProcessorRegistry } from './ports.ts';
import { FOLLOW_UP_WINDOW_MS, giveBack, givenBackAs, type SettleDeps } from './settle.ts';

const PAGE = 50;
/** A pass follows up this many attempts at most; the rest wait for the next pass. */
const MAX_PER_PASS = 200;
/** How soon an attempt with nothing owed is looked at again while its payment may still appear in the acquirer's list. */
const CHECK_AGAIN_MS = 60_000;

export interface FollowUpReport {
  /** Payments given back this pass (a late approval, a duplicate): the attempts they belong to. */
  givenBack: Transaction[];
  /** Attempts with a payment still to give back (refused, or no answer): tried again next pass. */
  owing: Transaction[];
}

/**
 * The reconciler's second task (decision 0192): finished attempts the acquirer may hold a
 * payment for that we must not keep. Each is listed by our reference at the acquirer; every
 * approved payment but the attempt's own (none, if the shopper was told it failed) is given
 * back, voided while only authorized or refunded once captured, and recorded on the attempt
 * (a late approval in `reversal`, others in `duplicatePayments`, raised for review). What the
 * acquirer does not take back now is asked again next pass; after a payment sent twice the
 * list is read again until it can no longer lag (FOLLOW_UP_WINDOW_MS).
 */
export async function followUpAttempts(deps: SettleDeps, signal?: AbortSignal): Promise<FollowUpReport> {
  const report: FollowUpReport = { givenBack: [], owing: [] };
  const processors = followers(deps.processors);
  const now = deps.clock.now();
  let after: { followUpAt: number; id: string } | null = null;
  for (let read = 0; read < MAX_PER_PASS; read += PAGE) {
    const page = await deps.store.dueFollowUpsAcrossAccounts({
      processors: [...processors.keys()],
      now,
      after,
      limit: PAGE,
    });
    for (const attempt of page) {
      if (signal?.aborted) return report;
      const processor = processors.get(attempt.processor);
      if (processor && attempt.status !== TX_STATUS.pending) await followUp(deps, processor, attempt, report);
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE) break;
    after = { followUpAt: last.followUpAt ?? now, id: last.id };
  }
  return report;
}

async function followUp(deps: SettleDeps, processor: Processor, attempt: Transaction, report: FollowUpReport) {
  const now = deps.clock.now();
  const held = await processor.paymentsOf?.({ attemptId: attempt.id, paymentRef: attempt.processorPaymentRef });
  if (!held) {
    report.owing.push(attempt);
    return;
  }
  let after: Transaction = { ...attempt, updatedAt: now };
  let gave = false;
  for (const payment of owed(attempt, held)) {
    const answer = await giveBack(deps, attempt, payment.payment);
    const text = answer ? givenBackAs(answer) : null;
    gave ||= text !== null;
    after = recorded(after, payment.payment, text, now);
  }
  const outstanding = after.reversal === null && lateApproval(attempt, held) ? true : stillOwed(after);
  const watching = now - attempt.createdAt < FOLLOW_UP_WINDOW_MS;
  after.followUpAt = outstanding ? now : watching ? now + CHECK_AGAIN_MS : null;
  if (await recordFollowUp(deps.store, attempt, after)) {
    if (gave) report.givenBack.push(after);
    if (outstanding) report.owing.push(after);
  }
}

const FAILED: readonly number[] = [TX_STATUS.declined, TX_STATUS.failed];

/**
 * The approved payments not given back yet that the attempt must not keep, and the duplicates
 * already recorded but not given back (a notice named them; the acquirer's list may lag).
 */
function owed(attempt: Transaction, held: HeldPayment[]): { payment: string }[] {
  const kept = FAILED.includes(attempt.status) ? null : attempt.processorPaymentRef;
  const listed = held.filter((p) => {
    if (!p.approved || p.payment === kept) return false;
    if (isOwnLateApproval(attempt, p.payment)) return attempt.reversal === null;
    return !attempt.duplicatePayments.some((d) => d.payment === p.payment && d.givenBack !== null);
  });
  const known = attempt.duplicatePayments.filter(
    (d) => d.givenBack === null && !listed.some((p) => p.payment === d.payment),
  );
  return [...listed, ...known];
}

/** The attempt's own payment, approved after the shopper was told it failed: recorded in `reversal`. */
const isOwnLateApproval = (attempt: Transaction, payment: string) =>
  FAILED.includes(attempt.status) && (attempt.processorPaymentRef === null || attempt.processorPaymentRef === payment);

const lateApproval = (attempt: Transaction, held: HeldPayment[]) =>
  held.some((p) => p.approved && isOwnLateApproval(attempt, p.payment));

function recorded(tx: Transaction, payment: string, text: string | null, now: number): Transaction {
  if (isOwnLateApproval(tx, payment) && tx.reversal === null) {
    return { ...tx, processorPaymentRef: payment, reversal: text };
  }
  const others = tx.duplicatePayments.filter((d) => d.payment !== payment);
  const duplicatePayments: DuplicatePayment[] = [...others, { payment, givenBack: text }];
  return raisedForReview({ ...tx, duplicatePayments }, 'duplicate_payments', now);
}

const stillOwed = (tx: Transaction) => tx.duplicatePayments.some((d) => d.givenBack === null);

/** The processors that can list an attempt's payments and give one back, by name. */
function followers(registry: ProcessorRegistry): Map<string, Processor> {
  const modes: Mode[] = ['live', 'sandbox'];
  const found = new Map<string, Processor>();
  for (const processor of modes.map((mode) => registry.forMode(mode))) {
    if (processor?.paymentsOf && processor.reverse) found.set(processor.name, processor);
  }
  return found;
}
