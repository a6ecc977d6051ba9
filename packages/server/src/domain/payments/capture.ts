import { feeFor } from '../../money.ts';
import type { Account } from '../accounts.ts';
import { ApiError } from '../errors.ts';
import { intentEvent, type PaymentIntent, retrievePaymentIntent } from '../intents.ts';
import { type Transaction, TX_STATUS, transactionEvent } from '../transactions.ts';
import { unexpectedState } from './intent-state.ts';
import type { OutcomeDeps } from './outcome.ts';
import type { CaptureOutcome, ProcessorRegistry, ReversalOutcome } from './ports.ts';

export interface CaptureDeps extends Pick<OutcomeDeps, 'store' | 'intents' | 'transactions' | 'clock'> {
  processors: Pick<ProcessorRegistry, 'byName'>;
}

/**
 * POST /payment-intents/{id}/capture (decision 0241): a requires_capture intent's authorization
 * is captured at the acquirer (all of it, or `amountToCapture`: the rest is released), then the
 * intent succeeds and its attempt settles for what was captured, by compare-and-set. The call
 * is keyed by the attempt, so a capture sent again after a lost answer happens once.
 */
export async function capturePaymentIntent(
  deps: CaptureDeps,
  account: Account,
  id: string,
  amountToCapture?: number,
): Promise<PaymentIntent> {
  const { intent, attempt } = await authorizedAttempt(deps, account, id, 'captured');
  const amount = amountToCapture ?? attempt.amount;
  if (amount > attempt.amount) {
    throw new ApiError(
      'capture_amount_too_large',
      `amount_to_capture must be at most the amount authorized, ${attempt.amount}.`,
      'amount_to_capture',
    );
  }
  const processor = deps.processors.byName(attempt.processor);
  if (processor?.capture) {
    if (!attempt.processorPaymentRef) throw unavailable('capture');
    const outcome = await processor
      .capture({ paymentRef: attempt.processorPaymentRef, amount, key: `capture_${attempt.id}` })
      .catch((): CaptureOutcome => ({ kind: 'unknown', message: 'The acquirer did not answer.' }));
    if (outcome.kind !== 'succeeded') throw acquirerRefusal(outcome, 'capture');
  }
  const now = deps.clock.now();
  const captured: Transaction = {
    ...attempt,
    status: TX_STATUS.settled,
    amount,
    amountAuthorized: amount === attempt.amount ? null : attempt.amount,
    feeAmount: feeFor(amount, { bps: attempt.feeBps, fixedMinor: attempt.feeFixedMinor }),
    updatedAt: now,
  };
  const succeeded = await deps.store.capture(intent, captured, (after) => [
    transactionEvent('transaction.updated', captured),
    intentEvent('payment_intent.succeeded', after),
  ]);
  if (succeeded) return succeeded;
  throw unexpectedState(await retrievePaymentIntent(deps.intents, account, id), 'captured', now);
}

/** The intent in requires_capture and its authorized attempt; anything else is refused, naming the status. */
export async function authorizedAttempt(
  deps: Pick<CaptureDeps, 'intents' | 'transactions' | 'clock'>,
  account: Account,
  id: string,
  action: string,
): Promise<{ intent: PaymentIntent; attempt: Transaction }> {
  const intent = await retrievePaymentIntent(deps.intents, account, id);
  const attempt =
    intent.status === 'requires_capture' && intent.lastTransactionId
      ? await deps.transactions.find(account.id, intent.lastTransactionId)
      : undefined;
  if (!attempt || attempt.status !== TX_STATUS.authorized) throw unexpectedState(intent, action, deps.clock.now());
  return { intent, attempt };
}

/** The acquirer refused, or did not answer: nothing changed here, and the merchant is told which. */
export function acquirerRefusal(outcome: CaptureOutcome | ReversalOutcome, action: 'capture' | 'void'): ApiError {
  if (outcome.kind === 'unknown') return unavailable(action);
  return new ApiError('acquirer_declined', `The acquirer refused the ${action}; nothing was changed.`);
}

const unavailable = (action: string) =>
  new ApiError(
    'acquirer_unavailable',
    `The acquirer did not answer the ${action}; nothing was changed. Send the request again.`,
  );
