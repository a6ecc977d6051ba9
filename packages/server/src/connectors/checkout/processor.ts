import { decidedOrNull } from '../../domain/payments/acquirer-calls.ts';
import type {
  AttemptRef,
  AuthorizeOutcome,
  AuthorizeRequest,
  CaptureOutcome,
  ChallengeAnswer,
  HeldPayment,
  Processor,
  ProcessorNotice,
  RefundOutcome,
  RefundRequest,
  ReversalOutcome,
} from '../../domain/payments/ports.ts';
import type { ConnectorLog } from '../connector-log.ts';
import { Budget, CheckoutCalls } from './calls.ts';
import type { CheckoutConfig } from './config.ts';
import { readCheckoutNotice } from './notices.ts';
import { fundsOf, heldOf, isLostAnswer, outcomeOfError, outcomeOfPayment, standingOf } from './outcomes.ts';
import type { CkoPayment, CkoPaymentRequest, CkoSdkError } from './wire.ts';

/**
 * Live payments through Checkout.com's Payments API with the official SDK (docs/live.md,
 * decisions 0130, 0191, 0194, 0195). Every call answers an outcome, never a throw. A lost
 * answer is never sent again blindly: Checkout.com keeps only 2xx answers under the
 * idempotency key, so the payment (or refund, or void) is looked up first (calls.ts).
 */
export class CheckoutProcessor implements Processor {
  readonly name = 'checkout-com';
  readonly noticeSignatureHeader = 'cko-signature';
  readonly frameSources: readonly string[];
  readonly #calls: CheckoutCalls;
  readonly #config: CheckoutConfig;
  readonly #log: ConnectorLog | undefined;

  constructor(config: CheckoutConfig, log?: ConnectorLog) {
    this.#calls = new CheckoutCalls(config);
    this.#config = config;
    this.#log = log;
    this.frameSources = config.apiBase.protocol === 'https:' ? ['https:'] : [config.apiBase.origin];
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    if (request.mode !== 'live') {
      return { kind: 'error', issuer: null, message: 'The Checkout.com connector does not process sandbox payments.' };
    }
    const budget = new Budget(this.#config.timeoutMs);
    const body = paymentRequest(request, this.#config);
    try {
      const { answer, resent } = await this.#calls.sendOnce(
        budget,
        () => this.#calls.payments.request(body, request.attemptId),
        async () => (await this.#standing(budget, request.attemptId))?.payment ?? null,
      );
      const outcome = outcomeOfPayment(answer);
      return resent ? { ...outcome, resent } : outcome;
    } catch (error) {
      this.#warn(request.attemptId, 'authorize', error);
      return outcomeOfError(error);
    }
  }

  /** The shopper is back from the issuer's page (cko-session-id on our URL): GET /payments/{id} knows the result. */
  async completeChallenge(challengeRef: string, _answer: ChallengeAnswer): Promise<AuthorizeOutcome> {
    try {
      return outcomeOfPayment(await this.#calls.read((p) => p.get(challengeRef)), true);
    } catch (error) {
      this.#warn(challengeRef, 'challenge', error);
      // A failed read changes nothing at Checkout.com: the attempt stays open for the webhook or the expiry.
      return { ...outcomeOfError(error), kind: 'unknown' } as AuthorizeOutcome;
    }
  }

  /** The attempt's payment: by its id when known, else by our reference; other approvals for it are duplicates. */
  async lookup(attempt: AttemptRef): Promise<AuthorizeOutcome | null> {
    return decidedOrNull(
      async () => {
        if (attempt.paymentRef)
          return { payment: await this.#calls.read((p) => p.get(attempt.paymentRef as string)), others: [] };
        return this.#standing(new Budget(this.#config.timeoutMs), attempt.attemptId);
      },
      ({ payment, others }) => {
        const outcome = outcomeOfPayment(payment);
        if (outcome.kind !== 'approved' || others.length === 0) return outcome;
        return { ...outcome, duplicates: others.map((o) => ({ payment: o.id, charge: null })) };
      },
      (error) => this.#warn(attempt.attemptId, 'lookup', error),
    );
  }

  async paymentsOf(attempt: AttemptRef): Promise<HeldPayment[] | null> {
    try {
      const listed = await this.#calls.byReference(new Budget(this.#config.timeoutMs), attempt.attemptId);
      const known = attempt.paymentRef && !listed.some((p) => p.id === attempt.paymentRef);
      // The list may lag behind a payment we already know of.
      const payments = known ? [await this.#calls.read((p) => p.get(attempt.paymentRef as string)), ...listed] : listed;
      return payments.map(heldOf);
    } catch (error) {
      this.#warn(attempt.attemptId, 'lookup', error);
      return null;
    }
  }

  async attemptIdOf(paymentRef: string): Promise<string | null> {
    try {
      const payment = await this.#calls.read((p) => p.get(paymentRef));
      return payment.metadata?.obolus_attempt ?? payment.reference ?? null;
    } catch (error) {
      this.#warn(paymentRef, 'lookup', error);
      return null;
    }
  }

  /** 202 Accepted: the refund's final state comes by webhook (payment_refunded or payment_refund_declined). */
  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const { attempt, refundId, amount } = request;
    try {
      const budget = new Budget(this.#config.timeoutMs);
      const paymentRef = attempt.paymentRef ?? (await this.#standing(budget, attempt.attemptId))?.payment.id;
      if (!paymentRef) return { kind: 'failed', ref: null, message: 'Checkout.com has no payment for this attempt.' };
      const accepted = await this.#action(budget, paymentRef, 'Refund', refundId, amount);
      return { kind: 'pending', ref: accepted.action_id };
    } catch (error) {
      this.#warn(attempt.attemptId, 'refund', error);
      if (outcomeOfError(error).kind === 'unknown') return { kind: 'unknown', message: 'Checkout.com did not answer.' };
      // 403 Refund not allowed: an Authorized payment is captured a moment later; refused once captured.
      if (statusOf(error) === 403 && (await this.#fundsNow(attempt.paymentRef)) === 'authorized') {
        return { kind: 'unknown', message: 'Checkout.com has not captured the payment yet: sent again later.' };
      }
      return { kind: 'failed', ref: null, message: 'Checkout.com refused the refund.' };
    }
  }

  /** A whole payment given back: voided while Authorized, refunded once Captured (decision 0195). */
  async reverse(payment: { attemptId: string; paymentRef: string }): Promise<ReversalOutcome> {
    const { paymentRef } = payment;
    try {
      const now = await this.#calls.read((p) => p.get(paymentRef));
      const done = givenBackAlready(now);
      if (done) return done;
      const funds = fundsOf(now);
      if (funds === null) return { kind: 'failed', message: `The payment is ${now.status} at Checkout.com.` };
      const budget = new Budget(this.#config.timeoutMs);
      const method = funds === 'authorized' ? 'void' : 'refund';
      const key = `reversal_${paymentRef}`;
      const accepted = await this.#action(budget, paymentRef, method === 'void' ? 'Void' : 'Refund', key);
      return { kind: 'pending', method, ref: accepted.action_id };
    } catch (error) {
      this.#warn(payment.attemptId, 'reverse', error);
      if (isLostAnswer(error)) return { kind: 'unknown', message: 'Checkout.com did not answer.' };
      // 403: captured (or voided) between our read and the call: the next pass reads it again.
      return { kind: 'failed', message: 'Checkout.com refused to give the payment back as it stood.' };
    }
  }

  async voidAuthorization(request: { paymentRef: string; key: string }): Promise<ReversalOutcome> {
    try {
      const budget = new Budget(this.#config.timeoutMs);
      const accepted = await this.#action(budget, request.paymentRef, 'Void', request.key);
      return { kind: 'pending', method: 'void', ref: accepted.action_id };
    } catch (error) {
      this.#warn(request.paymentRef, 'void', error);
      if (isLostAnswer(error)) return { kind: 'unknown', message: 'Checkout.com did not answer.' };
      return { kind: 'failed', message: 'Checkout.com refused the void: the payment is not an open authorization.' };
    }
  }

  /**
   * Captures an authorization, `Final`: what is not captured is released (decision 0241). Card
   * captures are processed asynchronously: the 202 is Checkout.com's acceptance, as for its
   * automatic captures, and the payment_captured event follows.
   */
  async capture(request: { paymentRef: string; amount: number; key: string }): Promise<CaptureOutcome> {
    try {
      const budget = new Budget(this.#config.timeoutMs);
      const accepted = await this.#action(budget, request.paymentRef, 'Capture', request.key, request.amount);
      return { kind: 'succeeded', ref: accepted.action_id };
    } catch (error) {
      this.#warn(request.paymentRef, 'capture', error);
      if (isLostAnswer(error)) return { kind: 'unknown', message: 'Checkout.com did not answer.' };
      return { kind: 'failed', message: 'Checkout.com refused the capture: the payment is not an open authorization.' };
    }
  }

  readNotice(rawBody: Buffer, signature: string): ProcessorNotice {
    return readCheckoutNotice(rawBody, signature, this.#config.webhookSecret);
  }

  /**
   * A refund, void or capture under `key` (its reference and idempotency key). The payment's actions are
   * read first (this may be the reconciler sending again one whose answer was lost: a 5xx is not
   * kept under the key, so a blind resend would refund twice), and again if this answer is lost.
   */
  async #action(budget: Budget, paymentRef: string, type: 'Refund' | 'Void' | 'Capture', key: string, amount?: number) {
    const find = () => this.#calls.actionOf(budget, paymentRef, type, key);
    const made = await find();
    if (made) return made;
    const body = amount === undefined ? { reference: key } : { amount, reference: key };
    const { payments } = this.#calls;
    const send = () => {
      if (type === 'Capture') {
        return payments.capture(paymentRef, { amount: amount ?? 0, capture_type: 'Final', reference: key }, key);
      }
      return type === 'Refund' ? payments.refund(paymentRef, body, key) : payments.void(paymentRef, body, key);
    };
    return (await this.#calls.sendOnce(budget, send, find)).answer;
  }

  async #standing(budget: Budget, attemptId: string): Promise<{ payment: CkoPayment; others: CkoPayment[] } | null> {
    return standingOf(await this.#calls.byReference(budget, attemptId));
  }

  async #fundsNow(paymentRef: string | null) {
    if (!paymentRef) return null;
    return fundsOf(await this.#calls.read((p) => p.get(paymentRef)).catch(() => ({ status: 'Pending' }) as CkoPayment));
  }

  #warn(attemptId: string, call: string, error: unknown): void {
    const e = error as CkoSdkError;
    // Name, status and error codes only: never a body that may quote the request.
    const codes = typeof e?.body === 'object' ? (e.body.error_codes ?? null) : null;
    this.#log?.warn(
      { attempt_id: attemptId, call, type: e?.name ?? 'Error', status: e?.http_code ?? null, codes },
      'checkout.com call failed',
    );
  }
}

const statusOf = (error: unknown) => (error as CkoSdkError | null)?.http_code;

/** A payment that holds no money now: voided or refunded already (by us, under its action), or never taken. */
function givenBackAlready(payment: CkoPayment): ReversalOutcome | null {
  const last = (type: string) => payment.actions?.find((a) => a.type === type)?.id;
  if (payment.status === 'Voided') return { kind: 'succeeded', method: 'void', ref: last('Void') ?? payment.id };
  if (payment.status === 'Refunded') return { kind: 'succeeded', method: 'refund', ref: last('Refund') ?? payment.id };
  if (['Declined', 'Cancelled', 'Canceled', 'Expired'].includes(payment.status)) {
    return { kind: 'nothing_taken', status: payment.status };
  }
  return null;
}

function paymentRequest(request: AuthorizeRequest, config: CheckoutConfig): CkoPaymentRequest {
  const { card } = request;
  const descriptor = billingDescriptorOf(request.descriptor);
  return {
    source: {
      type: 'card',
      number: card.number,
      expiry_month: card.expMonth,
      expiry_year: card.expYear,
      cvv: card.cvc,
      name: card.name,
    },
    amount: request.amount,
    currency: request.currency,
    reference: request.attemptId,
    processing_channel_id: config.processingChannelId,
    capture: request.capture !== 'manual',
    '3ds': { enabled: true, attempt_n3d: config.threeDS === 'attempt' },
    success_url: request.returnUrl,
    failure_url: request.returnUrl,
    payment_type: 'Regular',
    metadata: { obolus_intent: request.intentId, obolus_attempt: request.attemptId },
    ...(descriptor ? { billing_descriptor: { name: descriptor, city: 'Online' } } : {}),
  };
}

/** billing_descriptor.name: at most 25 characters (BillingDescriptor); letters, digits, spaces, dots and dashes. */
export function billingDescriptorOf(descriptor: string | null): string {
  return (descriptor ?? '')
    .normalize('NFD')
    .replace(/[^A-Za-z0-9 .-]/g, '')
    .trim()
    .slice(0, 25)
    .trim();
}
