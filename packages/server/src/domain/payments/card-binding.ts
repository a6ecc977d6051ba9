import { MINUTE } from '../../clock.ts';
import { CardDecryptionBusy } from '../../crypto/card-decrypt-pool.ts';
import { type DecryptedCard, UnreadableCiphertext } from '../../crypto/card-keyring.ts';
import type { CardInput } from '../cards.ts';
import { ApiError } from '../errors.ts';
import type { PaymentIntent } from '../intent-model.ts';
import type { CiphertextUse } from './ports.ts';

/**
 * A card ciphertext pays one payment, once, soon after it was made (docs/decisions/0080).
 * The widget names the intent, an issue time and a unique id in the JWE protected header,
 * which AES-GCM authenticates: a blob lifted from a log cannot be re-aimed or re-used.
 */

/** How old a ciphertext may be: the widget encrypts when Pay is pressed, so seconds suffice. */
export const CARD_JWE_MAX_AGE_MS = 5 * MINUTE;
/** How far ahead of our clock an issue time may be (the widget corrects for the shopper's clock). */
export const CARD_JWE_MAX_AHEAD_MS = MINUTE;
const JTI = /^[A-Za-z0-9_-]{16,64}$/;

export interface UsedCiphertexts {
  /** Records a use; false when this `jti` was used before (by any process). */
  claim(use: CiphertextUse): Promise<boolean>;
}

export interface CardBindingDeps {
  keyring: { decrypt(jwe: string): Promise<DecryptedCard> };
}

/**
 * Thrown by the store when the attempt's ciphertext use is already recorded: the attempt is
 * undone with it (PaymentStore.beginAttempt records the use and begins the attempt atomically).
 */
export class CiphertextReplayed extends Error {
  constructor() {
    super('card ciphertext already used');
  }
}

/** The shopper's answer to a replayed ciphertext. */
export function refuseReplayed(error: unknown): never {
  if (error instanceof CiphertextReplayed) {
    throw invalidJwe('it has already been used; a card is encrypted for one attempt only');
  }
  throw error;
}

/**
 * Decrypts the card for `intent`, refusing a foreign, stale or non-object ciphertext. Answers
 * the card and the use to record: a replay is refused when the use is recorded, in the same
 * write as the attempt it pays for (one durable commit fewer per payment; decision 0183).
 */
export async function openBoundCard(
  deps: CardBindingDeps,
  jwe: string,
  intent: PaymentIntent,
  now: number,
): Promise<{ card: CardInput; use: CiphertextUse }> {
  const { payload, header } = await decryptCard(deps, jwe);
  const { payment_intent: boundTo, iat, jti } = header;
  if (typeof boundTo !== 'string' || typeof iat !== 'number' || typeof jti !== 'string' || !JTI.test(jti)) {
    throw invalidJwe('it is not bound to a payment; reload the payment form');
  }
  if (boundTo !== intent.id) throw invalidJwe('it was made for another payment');
  const issuedAt = iat * 1000;
  if (!Number.isFinite(issuedAt) || issuedAt < now - CARD_JWE_MAX_AGE_MS || issuedAt > now + CARD_JWE_MAX_AHEAD_MS) {
    throw invalidJwe('it is too old or dated in the future; enter the card again');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw invalidJwe();
  const use = {
    jti,
    accountId: intent.accountId,
    paymentIntentId: intent.id,
    usedAt: now,
    expiresAt: issuedAt + CARD_JWE_MAX_AGE_MS,
  };
  return { card: payload as CardInput, use };
}

async function decryptCard(deps: CardBindingDeps, jwe: string): Promise<DecryptedCard> {
  try {
    return await deps.keyring.decrypt(jwe);
  } catch (error) {
    if (error instanceof UnreadableCiphertext) throw invalidJwe(error.reason);
    if (error instanceof CardDecryptionBusy) throw decryptionBusy();
    throw error;
  }
}

export function invalidJwe(reason = 'it is malformed or was tampered with'): ApiError {
  return new ApiError('card_encryption_invalid', `The encrypted card could not be read: ${reason}.`, 'card');
}

/** Every card-decryption thread busy and its queue full, or a thread lost: nothing was done yet. */
export function decryptionBusy(): ApiError {
  return new ApiError(
    'service_busy',
    'The service is busy decrypting other cards. Nothing was charged; try again in a moment.',
    undefined,
    1,
  );
}
