import { type Transaction, TX_STATUS, transactionEvent } from '../transactions.ts';
import { type OutcomeDeps, recordOutcome, withIssuer } from './outcome.ts';
import type { AuthorizeOutcome, Processor, ProcessorRegistry } from './ports.ts';

export interface SettleDeps extends OutcomeDeps {
  processors: ProcessorRegistry;
}

export type Settlement =
  /** The attempt was pending and now has this final state. */
  | { kind: 'settled'; transaction: Transaction }
  /** An approval of an attempt already recorded as failed: given back at the acquirer and recorded. */
  | { kind: 'reversed'; transaction: Transaction }
  /** Nothing to do: not a decision, already known, or a step backwards. */
  | { kind: 'unchanged'; transaction: Transaction };

const FAILED: readonly number[] = [TX_STATUS.declined, TX_STATUS.failed];

/**
 * Applies what an acquirer says became of an attempt, whoever asked (the reconciler) or
 * told (a webhook). Forward only: a pending attempt gets its final state by the confirm's
 * own compare-and-set; a final state is never changed, except that an approval arriving
 * for an attempt the shopper was told had failed is given back at once and recorded.
 */
export async function settleAttempt(
  deps: SettleDeps,
  attempt: Transaction,
  outcome: AuthorizeOutcome,
): Promise<Settlement> {
  if (outcome.kind === 'unknown' || outcome.kind === 'challenge') return { kind: 'unchanged', transaction: attempt };
  let current = attempt;
  if (attempt.status === TX_STATUS.pending) {
    const intent = await deps.intents.find(attempt.accountId, attempt.paymentIntentId);
    if (!intent) return { kind: 'unchanged', transaction: attempt };
    const recorded = await recordOutcome(deps, intent, attempt, outcome);
    if (recorded.transaction.status !== TX_STATUS.pending && !FAILED.includes(recorded.transaction.status)) {
      return { kind: 'settled', transaction: recorded.transaction };
    }
    current = recorded.transaction;
    if (outcome.kind !== 'approved') return { kind: 'settled', transaction: current };
  }
  if (outcome.kind === 'approved' && FAILED.includes(current.status) && current.reversal === null) {
    return reverseLateApproval(deps, current, outcome);
  }
  return { kind: 'unchanged', transaction: current };
}

async function reverseLateApproval(
  deps: SettleDeps,
  failed: Transaction,
  approval: Extract<AuthorizeOutcome, { kind: 'approved' }>,
): Promise<Settlement> {
  const processor: Processor | null = deps.processors.byName(failed.processor);
  const tx = withIssuer(failed, approval.issuer, approval.refs);
  const answer = processor?.reverse
    ? await processor.reverse({ attemptId: tx.id, paymentRef: tx.processorPaymentRef }).catch(() => null)
    : null;
  if (!answer || answer.kind === 'unknown' || answer.kind === 'failed') {
    // Not given back yet: left for the next pass (reconciler) or delivery (webhook retry).
    return { kind: 'unchanged', transaction: failed };
  }
  const reversed: Transaction = {
    ...tx,
    reversal: `${answer.kind === 'pending' ? 'refund pending' : 'refunded'} ${answer.ref}`,
    updatedAt: deps.clock.now(),
  };
  const recorded = await deps.store.recordReversal(reversed, [transactionEvent('transaction.updated', reversed)]);
  return { kind: recorded ? 'reversed' : 'unchanged', transaction: recorded ? reversed : failed };
}
