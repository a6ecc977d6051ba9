import type { ProcessorNotice } from './payments/ports.ts';
import { type RefundStore, settleRefund } from './refunds.ts';
import type { Refund } from './transactions.ts';

/**
 * An acquirer's notice about a refund Obolus made: pending -> succeeded | failed, succeeded ->
 * failed; a pending notice records the acquirer's id of a refund whose answer was lost. The
 * refund is found by the acquirer's id of it (Checkout.com's action id: its notices carry the
 * payment's reference, not the refund's; decision 0197), else by our refund id, else as the one
 * refund of that payment and amount whose call has not been answered yet (the notice can come
 * before the answer). A notice it cannot place while the payment has unanswered refunds asks
 * to be sent again (`retry`): the reconciler's resend learns the id it needs.
 */
export async function settleRefundNotice(
  store: RefundStore,
  processor: string,
  notice: Extract<ProcessorNotice, { kind: 'refund' }>,
  now: number,
): Promise<boolean | 'retry'> {
  const refund = await refundOf(store, processor, notice);
  if (refund === 'retry' || refund === undefined) return refund ?? false;
  if (notice.status === 'pending') {
    if (refund.status !== 'pending' || refund.processorRef !== null) return false;
    return (await settleRefund(store, refund, { status: 'pending', processorRef: notice.ref, now })) !== null;
  }
  if (refund.status === notice.status || refund.status === 'failed') return false;
  return (await settleRefund(store, refund, { status: notice.status, processorRef: notice.ref, now })) !== null;
}

/**
 * The refund a notice is about. Looked up by the acquirer's id once more after the unanswered
 * ones: the refund call's answer may have been recorded between the first lookup and that
 * one (the notice and the answer race), and the refund is then no longer unanswered.
 */
async function refundOf(
  store: RefundStore,
  processor: string,
  notice: Extract<ProcessorNotice, { kind: 'refund' }>,
): Promise<Refund | 'retry' | undefined> {
  const byRef = () => store.findForNoticeAcrossAccounts({ processor, processorRef: notice.ref });
  const known =
    (await byRef()) ??
    (notice.refundId ? await store.findForNoticeAcrossAccounts({ refundId: notice.refundId }) : undefined);
  if (known) return sameProcessorPayment(known, processor, notice) ? known.refund : undefined;
  const unanswered = await unansweredOne(store, processor, notice);
  if (unanswered !== undefined) return unanswered;
  const answeredMeanwhile = await byRef();
  return answeredMeanwhile && sameProcessorPayment(answeredMeanwhile, processor, notice)
    ? answeredMeanwhile.refund
    : undefined;
}

function sameProcessorPayment(
  found: { processor: string; paymentRef: string | null },
  processor: string,
  notice: Extract<ProcessorNotice, { kind: 'refund' }>,
): boolean {
  return found.processor === processor && found.paymentRef === notice.paymentRef;
}

/** The one unanswered refund of the notice's payment and amount; `retry` when it cannot be told apart. */
async function unansweredOne(
  store: RefundStore,
  processor: string,
  notice: Extract<ProcessorNotice, { kind: 'refund' }>,
): Promise<Refund | 'retry' | undefined> {
  const unanswered = await store.unansweredOfAcrossAccounts(processor, notice.paymentRef);
  if (unanswered.length === 0) return undefined;
  const same = unanswered.filter((r) => r.amount === notice.amount);
  return same.length === 1 ? same[0] : 'retry';
}
