import { ApiError } from '../errors.ts';
import type { IntentStatus, PaymentIntent } from '../intent-model.ts';

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
