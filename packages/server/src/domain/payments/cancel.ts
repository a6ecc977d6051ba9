import type { Account } from '../accounts.ts';
import { ApiError } from '../errors.ts';
import {
  type CancellationReason,
  type IntentStatus,
  intentEvent,
  type PaymentIntent,
  retrievePaymentIntent,
} from '../intents.ts';
import type { OutcomeDeps } from './outcome.ts';

/** Where a merchant's cancel may start from (decision 0240); requires_capture voids its authorization first. */
const CANCELABLE: readonly IntentStatus[] = ['requires_payment', 'failed'];

/** What a merchant's change of an intent is refused with when its status does not allow it: nothing changed. */
export function unexpectedState(intent: PaymentIntent, action: string, now: number): ApiError {
  const status = statusAt(intent, now);
  return new ApiError(
    'intent_unexpected_state',
    `This payment intent cannot be ${action} because it has a status of ${status}.`,
  );
}

/** An intent past its window is expired even before the sweeper writes it so. */
export function statusAt(intent: PaymentIntent, now: number): IntentStatus {
  const open = intent.status === 'requires_payment' || intent.status === 'failed';
  return open && intent.expiresAt <= now ? 'expired' : intent.status;
}

/**
 * POST /payment-intents/{id}/cancel: requires_payment or failed -> canceled, by
 * compare-and-set, so a payment that begins at the same moment either wins (the cancel is
 * refused) or finds the intent canceled (the payment is refused).
 */
export async function cancelPaymentIntent(
  deps: Pick<OutcomeDeps, 'store' | 'intents' | 'clock'>,
  account: Account,
  id: string,
  reason: CancellationReason | null,
): Promise<PaymentIntent> {
  const intent = await retrievePaymentIntent(deps.intents, account, id);
  const now = deps.clock.now();
  if (!CANCELABLE.includes(statusAt(intent, now))) throw unexpectedState(intent, 'canceled', now);
  const canceled = await deps.store.cancel(intent, { now, reason }, (after) => [
    intentEvent('payment_intent.canceled', after),
  ]);
  if (canceled) return canceled;
  // Changed since we read it (a payment began): say what it is now.
  throw unexpectedState(await retrievePaymentIntent(deps.intents, account, id), 'canceled', now);
}
