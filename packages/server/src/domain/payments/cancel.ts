import type { Account } from '../accounts.ts';
import {
  type CancellationReason,
  type IntentStatus,
  intentEvent,
  type PaymentIntent,
  retrievePaymentIntent,
} from '../intents.ts';
import { type Transaction, TX_STATUS, transactionEvent } from '../transactions.ts';
import { acquirerRefusal, authorizedAttempt, type CaptureDeps } from './capture.ts';
import { statusAt, unexpectedState } from './intent-state.ts';
import type { ReversalOutcome } from './ports.ts';
import { givenBackAs } from './settle.ts';

/** Where a merchant's cancel may start from (decision 0240); requires_capture voids its authorization first. */
const CANCELABLE: readonly IntentStatus[] = ['requires_payment', 'failed'];

/**
 * POST /payment-intents/{id}/cancel: requires_payment or failed -> canceled, by
 * compare-and-set, so a payment that begins at the same moment either wins (the cancel is
 * refused) or finds the intent canceled (the payment is refused). A requires_capture intent's
 * authorization is voided at the acquirer first (decision 0241).
 */
export async function cancelPaymentIntent(
  deps: CaptureDeps,
  account: Account,
  id: string,
  reason: CancellationReason | null,
): Promise<PaymentIntent> {
  const intent = await retrievePaymentIntent(deps.intents, account, id);
  const now = deps.clock.now();
  if (intent.status === 'requires_capture') {
    const { attempt } = await authorizedAttempt(deps, account, id, 'canceled');
    const canceled = await voidAuthorization(deps, intent, attempt, reason);
    if (canceled) return canceled;
  } else if (CANCELABLE.includes(statusAt(intent, now))) {
    const canceled = await deps.store.cancel(intent, { now, reason }, (after) => [
      intentEvent('payment_intent.canceled', after),
    ]);
    if (canceled) return canceled;
  }
  // Not cancelable, or changed since we read it (a payment began, a capture won): say what it is now.
  throw unexpectedState(await retrievePaymentIntent(deps.intents, account, id), 'canceled', now);
}

/**
 * Releases an authorization (void at the acquirer; nothing to call in the sandbox) and cancels
 * its intent with its attempt voided. Throws when the acquirer refuses or does not answer;
 * null when the intent changed meanwhile.
 */
export async function voidAuthorization(
  deps: CaptureDeps,
  intent: PaymentIntent,
  attempt: Transaction,
  reason: CancellationReason | null,
): Promise<PaymentIntent | null> {
  const processor = deps.processors.byName(attempt.processor);
  let reversal: string | null = null;
  if (processor?.voidAuthorization) {
    const outcome = attempt.processorPaymentRef
      ? await processor
          .voidAuthorization({ paymentRef: attempt.processorPaymentRef, key: `void_${attempt.id}` })
          .catch((): ReversalOutcome => ({ kind: 'unknown', message: 'The acquirer did not answer.' }))
      : ({ kind: 'unknown', message: 'No payment id known yet.' } as const);
    reversal = givenBackAs(outcome);
    if (!reversal) throw acquirerRefusal(outcome, 'void');
  }
  const now = deps.clock.now();
  const voided: Transaction = { ...attempt, status: TX_STATUS.voided, reversal, updatedAt: now };
  return deps.store.cancel(intent, { now, reason, voided }, (after) => [
    transactionEvent('transaction.updated', voided),
    intentEvent('payment_intent.canceled', after),
  ]);
}

/**
 * Authorizations not captured by their intent's capture_before are voided and their intents
 * canceled with reason `automatic` (the expiry sweeper, decision 0241). One the acquirer does
 * not release now is tried again on the next pass.
 */
export async function voidExpiredAuthorizations(deps: CaptureDeps, batch = 100): Promise<PaymentIntent[]> {
  const voided: PaymentIntent[] = [];
  let after: PaymentIntent | undefined;
  for (;;) {
    const page = await deps.store.dueForVoidAcrossAccounts(deps.clock.now(), batch, after);
    for (const intent of page) {
      const attempt =
        intent.lastTransactionId && (await deps.transactions.find(intent.accountId, intent.lastTransactionId));
      if (!attempt || attempt.status !== TX_STATUS.authorized) continue;
      const canceled = await voidAuthorization(deps, intent, attempt, 'automatic').catch(() => null);
      if (canceled) voided.push(canceled);
    }
    after = page.at(-1);
    if (page.length < batch) return voided;
  }
}
