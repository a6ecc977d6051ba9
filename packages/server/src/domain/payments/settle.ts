import { MINUTE } from '../../clock.ts';
import { type Transaction, TX_STATUS } from '../transactions.ts';
import { mismatchOf, recordFollowUp, withMismatch } from './matching.ts';
import { type OutcomeDeps, recordOutcome, withIssuer } from './outcome.ts';
import type { AuthorizeOutcome, ProcessorRegistry, ReversalOutcome } from './ports.ts';

export interface SettleDeps extends OutcomeDeps {
  processors: ProcessorRegistry;
}

export type Settlement =
  /** The attempt was pending and now has this final state. */
  | { kind: 'settled'; transaction: Transaction }
  /** An approval of an attempt already recorded as failed: given back at the acquirer and recorded. */
  | { kind: 'reversed'; transaction: Transaction }
  /**
   * Not about this attempt (decision 0193): another amount or currency, or another payment.
   * Nothing of the attempt's outcome changed; it was raised for review (and another approved
   * payment is a duplicate to give back). The caller logs a warning.
   */
  | { kind: 'refused'; transaction: Transaction; reason: string }
  /** Nothing to do: not a decision, already known, or a step backwards. */
  | { kind: 'unchanged'; transaction: Transaction }
  /**
   * Not recorded: another write changed the attempt every time it was read again (SETTLE_TRIES).
   * Nothing changed; a notice is asked to be sent again, the reconciler looks again next pass.
   */
  | { kind: 'contended'; transaction: Transaction };

const FAILED: readonly number[] = [TX_STATUS.declined, TX_STATUS.failed];
/**
 * How many times an outcome is applied to the attempt as it is now after a compare-and-set
 * lost to another write (the confirm's own finish, another notice, the reconciler): each loss
 * means another write made progress, so a few are plenty.
 */
const SETTLE_TRIES = 4;
/** After a payment was sent twice, the acquirer's list is read again for this long (it may lag). */
export const FOLLOW_UP_WINDOW_MS = 15 * MINUTE;

/**
 * Applies what an acquirer says became of an attempt, whoever asked (the reconciler) or
 * told (a webhook). Forward only: a pending attempt gets its final state by the confirm's
 * own compare-and-set; a final state is never changed, except that an approval arriving
 * for an attempt the shopper was told had failed is given back at once and recorded (or
 * left to the reconciler's next pass when the acquirer does not take it back now).
 */
export async function settleAttempt(
  deps: SettleDeps,
  attempt: Transaction,
  outcome: AuthorizeOutcome,
  tries = SETTLE_TRIES,
): Promise<Settlement> {
  if (outcome.kind === 'unknown' || outcome.kind === 'challenge') return { kind: 'unchanged', transaction: attempt };
  /**
   * The attempt changed since it was read: the outcome is applied again to the attempt as it is
   * now. Above all when another write finished a pending attempt with another payment (the
   * confirm's own answer, the other payment's notice): this outcome's payment is then a
   * duplicate to record and give back, never an outcome to drop as stale.
   */
  const again = async (known?: Transaction): Promise<Settlement> => {
    if (tries <= 1) return { kind: 'contended', transaction: attempt };
    const current = known ?? (await deps.transactions.find(attempt.accountId, attempt.id));
    if (!current) return { kind: 'contended', transaction: attempt };
    return settleAttempt(deps, current, outcome, tries - 1);
  };
  const mismatch = mismatchOf(attempt, outcome);
  if (mismatch) {
    const raised = withMismatch(attempt, outcome, mismatch, deps.clock.now());
    if (!(await recordFollowUp(deps.store, attempt, raised))) return again();
    return { kind: 'refused', transaction: raised, reason: raised.reviewReason ?? 'mismatch' };
  }
  let current = attempt;
  if (attempt.status === TX_STATUS.pending) {
    const intent = await deps.intents.find(attempt.accountId, attempt.paymentIntentId);
    if (!intent) return { kind: 'unchanged', transaction: attempt };
    const recorded = await recordOutcome(deps, intent, attempt, outcome);
    // Finished first by another write (read again by recordOutcome), perhaps with another payment.
    if (!recorded.won && recorded.transaction.status !== TX_STATUS.pending) return again(recorded.transaction);
    if (recorded.transaction.status !== TX_STATUS.pending && !FAILED.includes(recorded.transaction.status)) {
      return { kind: 'settled', transaction: recorded.transaction };
    }
    current = recorded.transaction;
    if (outcome.kind !== 'approved') return { kind: 'settled', transaction: current };
  }
  if (outcome.kind === 'approved' && FAILED.includes(current.status) && current.reversal === null) {
    return giveBackLateApproval(deps, current, outcome);
  }
  return { kind: 'unchanged', transaction: current };
}

async function giveBackLateApproval(
  deps: SettleDeps,
  failed: Transaction,
  approval: Extract<AuthorizeOutcome, { kind: 'approved' }>,
): Promise<Settlement> {
  const now = deps.clock.now();
  const tx = { ...withIssuer(failed, approval.issuer, approval.refs), updatedAt: now };
  const answer = tx.processorPaymentRef ? await giveBack(deps, tx, tx.processorPaymentRef) : null;
  const reversal = answer ? givenBackAs(answer) : null;
  // Not given back yet: the reconciler tries again on its next pass (and finds the payment by our reference).
  const after = { ...tx, reversal, followUpAt: reversal ? tx.followUpAt : now };
  const recorded = await recordFollowUp(deps.store, failed, after);
  if (!recorded) return { kind: 'unchanged', transaction: failed };
  return { kind: reversal ? 'reversed' : 'unchanged', transaction: after };
}

/** Gives one payment back in full through the attempt's processor: null when it cannot be asked. */
export async function giveBack(deps: SettleDeps, attempt: Transaction, paymentRef: string) {
  const processor = deps.processors.byName(attempt.processor);
  if (!processor?.reverse) return null;
  return processor
    .reverse({ attemptId: attempt.id, paymentRef })
    .catch((): ReversalOutcome => ({ kind: 'unknown', message: 'The acquirer did not answer.' }));
}

/** `voided act_…`, `void pending act_…`, `refunded re_…`, `refund pending act_…`; null when not given back. */
export function givenBackAs(answer: ReversalOutcome): string | null {
  if (answer.kind === 'nothing_taken') return `nothing taken (${answer.status})`;
  if (answer.kind !== 'succeeded' && answer.kind !== 'pending') return null;
  const done = answer.kind === 'succeeded';
  const words = answer.method === 'void' ? (done ? 'voided' : 'void pending') : done ? 'refunded' : 'refund pending';
  return `${words} ${answer.ref}`;
}
