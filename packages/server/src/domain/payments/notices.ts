import { type ChargebackStore, recordChargeback, recordDisputeLost, recordDisputeWon } from '../chargebacks.ts';
import { TX_STATUS } from '../transactions.ts';
import type { Processor, ProcessorNotice } from './ports.ts';
import { type SettleDeps, settleAttempt } from './settle.ts';

/** Acquirer events already applied: a duplicate delivery is dropped by its id. */
export interface NoticeLog {
  seen(processor: string, eventId: string): Promise<boolean>;
  remember(processor: string, eventId: string, now: number): Promise<void>;
}

/**
 * What becomes of a refund the acquirer reports on (domain/refunds.ts): applied, nothing to
 * do, or `retry` when it names a refund of ours whose call is still unanswered (the acquirer
 * is asked to send it again once the resend has learnt its id).
 */
export interface RefundNotices {
  settleRefundNotice(
    processor: string,
    notice: Extract<ProcessorNotice, { kind: 'refund' }>,
    now: number,
  ): Promise<boolean | 'retry'>;
}

export interface NoticeDeps extends SettleDeps {
  noticeLog: NoticeLog;
  chargebacks: ChargebackStore;
  refundNotices: RefundNotices;
}

/**
 * `retry`: it names a payment or refund we cannot place yet (its attempt still unknown, its
 * refund call unanswered): not remembered, asked to be sent again. `refused`: it did not match
 * the attempt (decision 0193): nothing settled, the attempt raised for review, a warning logged.
 */
export type NoticeResult = 'applied' | 'duplicate' | 'ignored' | 'retry' | 'refused';

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
  if (applied === 'refused') return applied;
  return applied ? 'applied' : 'ignored';
}

async function apply(
  deps: NoticeDeps,
  processor: Processor,
  notice: ProcessorNotice,
): Promise<boolean | 'retry' | 'refused'> {
  switch (notice.kind) {
    case 'payment': {
      const attempt = await deps.store.attemptOfProcessorAcrossAccounts(processor.name, {
        attemptId: notice.attempt.attemptId,
      });
      if (!attempt) return false;
      // The payment as it is now beats the event's snapshot of it (events can arrive out of order).
      const current = processor.lookup ? await processor.lookup(notice.attempt).catch(() => null) : null;
      const settled = await settleAttempt(deps, attempt, current ?? notice.outcome);
      // Lost to other writes every time: not remembered, so that the acquirer sends it again.
      if (settled.kind === 'contended') return 'retry';
      return settled.kind === 'refused' ? 'refused' : settled.kind !== 'unchanged';
    }
    case 'dispute': {
      const attempt = await disputedAttempt(deps, processor, notice.paymentRef);
      // Out of order: a dispute of a payment whose approval we cannot record yet waits for it.
      if (!attempt) return 'retry';
      const dispute = { accountId: attempt.accountId, transactionId: attempt.id };
      // Lost (or never seen opened): the chargeback stands. Won: the money came back.
      if (notice.stage === 'won') return (await recordDisputeWon(deps.chargebacks, deps.clock, dispute)) !== null;
      if (notice.stage === 'lost') return (await recordDisputeLost(deps.chargebacks, deps.clock, dispute)) !== null;
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
  const known = await deps.store.attemptOfProcessorAcrossAccounts(processor.name, { paymentRef });
  if (known && known.status !== TX_STATUS.pending) return known;
  const attemptId = known?.id ?? (await processor.attemptIdOf?.(paymentRef));
  const attempt = attemptId
    ? await deps.store.attemptOfProcessorAcrossAccounts(processor.name, { attemptId })
    : undefined;
  const outcome = attempt && (await processor.lookup?.({ attemptId: attempt.id, paymentRef }).catch(() => null));
  if (!attempt || !outcome) return undefined;
  const settled = await settleAttempt(deps, attempt, outcome);
  return settled.transaction.status === TX_STATUS.pending ? undefined : settled.transaction;
}
