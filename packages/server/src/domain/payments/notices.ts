import { type ChargebackStore, recordChargeback } from '../chargebacks.ts';
import { TX_STATUS } from '../transactions.ts';
import type { Processor, ProcessorNotice } from './ports.ts';
import { type SettleDeps, settleAttempt } from './settle.ts';

/** Acquirer events already applied: a duplicate delivery is dropped by its id. */
export interface NoticeLog {
  seen(processor: string, eventId: string): Promise<boolean>;
  remember(processor: string, eventId: string, now: number): Promise<void>;
}

/** What becomes of a refund the acquirer reports on (domain/refunds.ts). */
export interface RefundNotices {
  settleRefundNotice(
    processor: string,
    notice: Extract<ProcessorNotice, { kind: 'refund' }>,
    now: number,
  ): Promise<boolean>;
}

export interface NoticeDeps extends SettleDeps {
  noticeLog: NoticeLog;
  chargebacks: ChargebackStore;
  refundNotices: RefundNotices;
}

/** `retry`: it names a payment we cannot place yet (its attempt still unknown): not remembered, asked to be sent again. */
export type NoticeResult = 'applied' | 'duplicate' | 'ignored' | 'retry';

/**
 * Applies one signed notice from an acquirer (a Stripe webhook). Duplicates are dropped
 * by event id; every change is a forward-only compare-and-set, and a payment's state is
 * read afresh from the acquirer where it can be, so events arriving late or out of order
 * change nothing they should not. `processor.readNotice` throws NoticeRejected on a bad
 * signature: nothing has been read or changed then.
 */
export async function applyProcessorNotice(
  deps: NoticeDeps,
  processor: Processor,
  rawBody: Buffer,
  signature: string,
): Promise<NoticeResult> {
  if (!processor.readNotice) return 'ignored';
  const notice = processor.readNotice(rawBody, signature);
  if (notice.kind === 'ignored') return 'ignored';
  if (await deps.noticeLog.seen(processor.name, notice.eventId)) return 'duplicate';
  const applied = await apply(deps, processor, notice);
  if (applied === 'retry') return applied;
  await deps.noticeLog.remember(processor.name, notice.eventId, deps.clock.now());
  return applied ? 'applied' : 'ignored';
}

async function apply(deps: NoticeDeps, processor: Processor, notice: ProcessorNotice): Promise<boolean | 'retry'> {
  switch (notice.kind) {
    case 'payment': {
      const attempt = await deps.store.attemptOfProcessor(processor.name, { attemptId: notice.attempt.attemptId });
      if (!attempt) return false;
      // The payment as it is now beats the event's snapshot of it (events can arrive out of order).
      const current = processor.lookup ? await processor.lookup(notice.attempt).catch(() => null) : null;
      const settled = await settleAttempt(deps, attempt, current ?? notice.outcome);
      return settled.kind !== 'unchanged';
    }
    case 'dispute': {
      const attempt = await disputedAttempt(deps, processor, notice.paymentRef);
      // Out of order: a dispute of a payment whose approval we cannot record yet waits for it.
      if (!attempt) return 'retry';
      const dispute = { accountId: attempt.accountId, transactionId: attempt.id };
      return (await recordChargeback(deps.chargebacks, deps.clock, dispute)) !== null;
    }
    case 'refund':
      return deps.refundNotices.settleRefundNotice(processor.name, notice, deps.clock.now());
    case 'ignored':
      return false;
  }
}

/**
 * The settled attempt a dispute is about. A dispute can come before we learnt of the
 * approval (its answer lost, or events out of order): then the attempt is found by the id
 * the payment carries and settled first, as the acquirer says it is now.
 */
async function disputedAttempt(deps: NoticeDeps, processor: Processor, paymentRef: string) {
  const known = await deps.store.attemptOfProcessor(processor.name, { paymentRef });
  if (known && known.status !== TX_STATUS.pending) return known;
  const attemptId = known?.id ?? (await processor.attemptIdOf?.(paymentRef));
  const attempt = attemptId ? await deps.store.attemptOfProcessor(processor.name, { attemptId }) : undefined;
  const outcome = attempt && (await processor.lookup?.({ attemptId: attempt.id, paymentRef }).catch(() => null));
  if (!attempt || !outcome) return undefined;
  const settled = await settleAttempt(deps, attempt, outcome);
  return settled.transaction.status === TX_STATUS.pending ? undefined : settled.transaction;
}
