import { timingSafeEqual } from 'node:crypto';
import { crashPoint } from '../../crash-points.ts';
import { CLIENT_SECRET, newTransactionId, uuidv7 } from '../../ids.ts';
import { feeFor } from '../../money.ts';
import type { Account } from '../accounts.ts';
import { binOf, checkCard, last4Of } from '../cards.ts';
import { ApiError } from '../errors.ts';
import { intentEvent, type Mode, type PaymentIntent } from '../intents.ts';
import type { ProductStore } from '../products.ts';
import { NOT_YET_PROCESSED, type Transaction, TX_STATUS, transactionEvent } from '../transactions.ts';
import { type CardBindingDeps, openBoundCard, refuseReplayed } from './card-binding.ts';
import { MAX_FAILED_ATTEMPTS_PER_INTENT } from './failure-limiter.ts';
import { newChallengeToken, type OutcomeDeps, type PaymentOutcome, recordOutcome } from './outcome.ts';
import type { ProcessorRegistry } from './ports.ts';

export interface ConfirmDeps extends OutcomeDeps, CardBindingDeps {
  processors: ProcessorRegistry;
  /** The product an intent was made for, checked again at confirm (issue 25 item 8). */
  products: Pick<ProductStore, 'find'>;
  /** The absolute address an issuer's 3-D Secure page sends the shopper back to, for a challenge token. */
  challengeReturnUrl(challengeToken: string): string;
}

export interface ConfirmIn {
  /** The account of the widget's client key. */
  account: Account;
  clientSecret: string;
  /** The widget's mode: must equal the intent's. */
  mode: Mode;
  /** Compact JWE of {number, exp_month, exp_year, cvc, name}. */
  card: string;
  clientIp: string;
}

/**
 * Finds the intent a client_secret pays, within the client key's account. A wrong secret,
 * a secret of another account and a missing intent are the same error.
 */
export async function intentForSecret(deps: Pick<OutcomeDeps, 'intents'>, account: Account, secret: string) {
  const id = CLIENT_SECRET.exec(secret)?.[1];
  const intent = id ? await deps.intents.find(account.id, id) : undefined;
  const a = Buffer.from(intent?.clientSecret ?? '');
  const b = Buffer.from(secret);
  if (!intent || a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new ApiError('client_secret_invalid', 'The client_secret is not valid for this client key.', 'client_secret');
  }
  return intent;
}

/** Refuses an intent that cannot take a new attempt now, saying why. */
export function assertPayable(intent: PaymentIntent, now: number): void {
  if (intent.status === 'succeeded' || intent.status === 'requires_capture') {
    throw new ApiError('payment_intent_unexpected_state', 'This payment has already been completed.');
  }
  if (intent.status === 'canceled') {
    throw new ApiError('payment_intent_canceled', 'This payment was canceled by the shop. Nothing was charged.');
  }
  if (intent.status === 'expired' || intent.expiresAt <= now) {
    throw new ApiError('payment_intent_expired', 'This payment has expired: its 7-day window has passed.');
  }
  if (intent.status === 'processing') {
    throw new ApiError('payment_in_progress', 'This payment is already being processed.');
  }
  if (intent.failedAttempts >= MAX_FAILED_ATTEMPTS_PER_INTENT) {
    throw new ApiError('too_many_attempts', 'Too many failed attempts for this payment. Contact the merchant.');
  }
}

/**
 * An intent made for a product (the hosted checkout) is paid only while the product is active
 * at the same price: a shopper holding an intent made before a price rise or a deactivation
 * must not pay the old terms (issue 25 item 8). The page makes a new intent on reload.
 */
async function assertProductUnchanged(deps: ConfirmDeps, intent: PaymentIntent): Promise<void> {
  if (!intent.productId) return;
  const product = await deps.products.find(intent.accountId, intent.productId);
  if (!product?.active || product.amount !== intent.amount || product.currency !== intent.currency) {
    throw new ApiError(
      'payment_intent_unexpected_state',
      'This product changed (its price, or it is no longer sold) since this payment was started. Reload the checkout page.',
    );
  }
}

/**
 * Pays an intent with a card: checks, then a pending attempt written by compare-and-set
 * (so a client_secret pays once however many confirms race) together with the use of the
 * card's ciphertext (so a ciphertext pays once) and the network's card-testing slot (so a
 * network reaches the processor at most its limit a minute), then the processor call
 * outside any database transaction, then its outcome recorded.
 */
export async function confirmPayment(deps: ConfirmDeps, input: ConfirmIn): Promise<PaymentOutcome> {
  const intent = await intentForSecret(deps, input.account, input.clientSecret);
  if (input.mode !== intent.mode) {
    throw new ApiError(
      'mode_mismatch',
      `The widget is in ${input.mode} mode but this payment is ${intent.mode}.`,
      'mode',
    );
  }
  const now = deps.clock.now();
  assertPayable(intent, now);
  await assertProductUnchanged(deps, intent);
  const { started, pending, card, processor } = await beginAttempt(deps, input, intent, now);
  crashPoint('after_attempt_recorded');
  const challengeToken = newChallengeToken();
  const outcome = await processor
    .authorize({
      attemptId: pending.id,
      intentId: intent.id,
      returnUrl: deps.challengeReturnUrl(challengeToken),
      amount: intent.amount,
      currency: intent.currency,
      mode: intent.mode,
      card,
      descriptor: started.descriptor,
      capture: started.captureMethod,
    })
    .catch((error: unknown) => ({ kind: 'error' as const, issuer: null, message: processorFailure(error) }));
  crashPoint('after_processor_answered');
  return recordOutcome(deps, started, pending, outcome, challengeToken);
}

/** Concurrent changes of the intent (a merchant's update) a confirm begins again after: each on the other's result. */
const BEGIN_TRIES = 3;

/** Opens the card and writes the pending attempt; throws, having changed nothing, when it cannot. */
async function beginAttempt(deps: ConfirmDeps, input: ConfirmIn, read: PaymentIntent, now: number) {
  const processor = deps.processors.forMode(read.mode);
  if (!processor) {
    throw new ApiError(
      'live_payments_unavailable',
      'Live payments are not available: no live connector is configured.',
    );
  }
  const opened = await openBoundCard(deps, input.card, read, now);
  const card = checkCard(opened.card, now);
  // The card-testing slot is taken with the attempt, before anything reaches the processor (decisions 0200, 0255).
  const slot = deps.limiter.slotOf(input.clientIp, now);
  let intent = read;
  for (let tries = 1; ; tries++) {
    const pending = pendingAttempt(intent, input, card, processor.name, now);
    const begun = await deps.store
      .beginAttempt(
        intent,
        pending,
        { now, maxFailedAttempts: MAX_FAILED_ATTEMPTS_PER_INTENT, ciphertext: opened.use, slot },
        (after) => [intentEvent('payment_intent.processing', after), transactionEvent('transaction.created', pending)],
      )
      .catch(refuseReplayed);
    if ('begun' in begun) return { started: begun.begun, pending, card, processor };
    // Not begun: say what the intent is now.
    const current = (await deps.intents.find(intent.accountId, intent.id)) ?? intent;
    assertPayable(current, now);
    if (begun.refused === 'rate_limited') {
      throw new ApiError('rate_limited', 'Too many failed payments from this network. Try again in a minute.');
    }
    if (current.amount !== pending.amount) {
      throw new ApiError(
        'payment_intent_unexpected_state',
        'The shop changed the amount of this payment. Nothing was charged: reload the page to see the new amount.',
      );
    }
    // Changed but still payable for the same amount (its description, its metadata): begin on the change.
    if (tries >= BEGIN_TRIES) {
      throw new ApiError('payment_in_progress', 'This payment is already being processed.');
    }
    intent = current;
  }
}

function processorFailure(_error: unknown): string {
  return 'The payment could not be processed. Nothing was charged; try again.';
}

function pendingAttempt(
  intent: PaymentIntent,
  input: ConfirmIn,
  card: ReturnType<typeof checkCard>,
  processor: string,
  now: number,
): Transaction {
  const { pricing } = input.account;
  return {
    id: newTransactionId(now),
    uuid: uuidv7(now),
    accountId: intent.accountId,
    paymentIntentId: intent.id,
    mode: intent.mode,
    status: TX_STATUS.pending,
    amount: intent.amount,
    currency: intent.currency,
    feeAmount: feeFor(intent.amount, pricing),
    feeBps: pricing.bps,
    feeFixedMinor: pricing.fixedMinor,
    refundedAmount: 0,
    card: {
      bin: binOf(card.number),
      last4: last4Of(card.number),
      length: card.number.length,
      brand: card.brand,
      expMonth: card.expMonth,
      expYear: card.expYear,
    },
    cardholder: card.name,
    cardCountry: null,
    cardBank: null,
    externalid: intent.externalid,
    productId: intent.productId,
    chargeback: false,
    declineCode: null,
    declineMessage: null,
    threeDS: null,
    authorizationCode: null,
    processor,
    challengeToken: null,
    processorChallengeRef: null,
    disputeAt: null,
    clientIp: input.clientIp,
    ...NOT_YET_PROCESSED,
    createdAt: now,
    updatedAt: now,
  };
}
