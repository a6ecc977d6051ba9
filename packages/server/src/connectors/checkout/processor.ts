import { Checkout } from 'checkout-sdk-node';
import { decidedOrNull, retryOnce, withDeadline } from '../../domain/payments/acquirer-calls.ts';
import type {
  AttemptRef,
  AuthorizeOutcome,
  AuthorizeRequest,
  ChallengeAnswer,
  Processor,
  ProcessorNotice,
  RefundOutcome,
  RefundRequest,
} from '../../domain/payments/ports.ts';
import type { ConnectorLog } from '../live.ts';
import type { CheckoutConfig } from './config.ts';
import { readCheckoutNotice } from './notices.ts';
import { isRetryable, outcomeOfError, outcomeOfPayment } from './outcomes.ts';
import type {
  CkoActionAccepted,
  CkoPayment,
  CkoPaymentList,
  CkoPaymentRequest,
  CkoRefundRequest,
  CkoSdkError,
} from './wire.ts';

/** checkout-sdk-node's payments client, as far as Obolus uses it (the package is untyped). */
interface CkoPayments {
  request(body: CkoPaymentRequest, idempotencyKey: string): Promise<CkoPayment>;
  get(id: string): Promise<CkoPayment>;
  getPaymentList(query: { reference: string }): Promise<CkoPaymentList>;
  refund(id: string, body: CkoRefundRequest, idempotencyKey: string): Promise<CkoActionAccepted>;
}

/**
 * Live payments through Checkout.com's Payments API with the official SDK (docs/live.md,
 * decision 0130). Every call answers an outcome, never a throw; our own deadline bounds
 * each try (the SDK's default client ignores its timeout), and a lost answer is retried
 * once with the same Cko-Idempotency-Key.
 */
export class CheckoutProcessor implements Processor {
  readonly name = 'checkout-com';
  readonly noticeSignatureHeader = 'cko-signature';
  readonly frameSources: readonly string[];
  readonly #payments: CkoPayments;
  readonly #config: CheckoutConfig;
  readonly #log: ConnectorLog | undefined;

  constructor(config: CheckoutConfig, log?: ConnectorLog) {
    const host = config.apiBase.origin;
    const sdk = new Checkout(config.secretKey, { host, httpClient: 'axios', timeout: config.timeoutMs });
    this.#payments = (sdk as unknown as { payments: CkoPayments }).payments;
    this.#config = config;
    this.#log = log;
    this.frameSources = config.apiBase.protocol === 'https:' ? ['https:'] : [config.apiBase.origin];
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    if (request.mode !== 'live') {
      return { kind: 'error', issuer: null, message: 'The Checkout.com connector does not process sandbox payments.' };
    }
    try {
      const body = paymentRequest(request, this.#config.processingChannelId);
      return outcomeOfPayment(await this.#call(() => this.#payments.request(body, request.attemptId)));
    } catch (error) {
      this.#warn(request.attemptId, 'authorize', error);
      return outcomeOfError(error);
    }
  }

  /** The shopper is back from the issuer's page (cko-session-id on our URL): GET /payments/{id} knows the result. */
  async completeChallenge(challengeRef: string, _answer: ChallengeAnswer): Promise<AuthorizeOutcome> {
    try {
      return outcomeOfPayment(await this.#call(() => this.#payments.get(challengeRef)), true);
    } catch (error) {
      this.#warn(challengeRef, 'challenge', error);
      // A failed read changes nothing at Checkout.com: the attempt stays open for the webhook or the expiry.
      return { ...outcomeOfError(error), kind: 'unknown' } as AuthorizeOutcome;
    }
  }

  async lookup(attempt: AttemptRef): Promise<AuthorizeOutcome | null> {
    return decidedOrNull(
      () => this.#find(attempt),
      (payment) => outcomeOfPayment(payment),
      (error) => this.#warn(attempt.attemptId, 'lookup', error),
    );
  }

  async attemptIdOf(paymentRef: string): Promise<string | null> {
    try {
      const payment = await this.#call(() => this.#payments.get(paymentRef));
      return payment.metadata?.obolus_attempt ?? payment.reference ?? null;
    } catch (error) {
      this.#warn(paymentRef, 'lookup', error);
      return null;
    }
  }

  refund(request: RefundRequest): Promise<RefundOutcome> {
    return this.#refund(request.attempt, request.amount, request.refundId);
  }

  /** Gives back an approval the shopper was told had failed: a full refund, keyed by the attempt. */
  reverse(attempt: AttemptRef): Promise<RefundOutcome> {
    return this.#refund(attempt, undefined, `reversal_${attempt.attemptId}`);
  }

  readNotice(rawBody: Buffer, signature: string): ProcessorNotice {
    return readCheckoutNotice(rawBody, signature, this.#config.webhookSecret);
  }

  /** 202 Accepted: the refund's final state comes by webhook (payment_refunded or payment_refund_declined). */
  async #refund(attempt: AttemptRef, amount: number | undefined, key: string): Promise<RefundOutcome> {
    try {
      const paymentRef = attempt.paymentRef ?? (await this.#find(attempt))?.id;
      if (!paymentRef) return { kind: 'failed', ref: null, message: 'Checkout.com has no payment for this attempt.' };
      const body: CkoRefundRequest = amount === undefined ? { reference: key } : { amount, reference: key };
      const accepted = await this.#call(() => this.#payments.refund(paymentRef, body, key));
      return { kind: 'pending', ref: accepted.action_id };
    } catch (error) {
      this.#warn(attempt.attemptId, 'refund', error);
      if (outcomeOfError(error).kind === 'unknown') return { kind: 'unknown', message: 'Checkout.com did not answer.' };
      return { kind: 'failed', ref: null, message: 'Checkout.com refused the refund.' };
    }
  }

  async #find(attempt: AttemptRef): Promise<CkoPayment | null> {
    if (attempt.paymentRef) return this.#call(() => this.#payments.get(attempt.paymentRef as string));
    if (!/^[0-9a-f]{24}$/.test(attempt.attemptId)) return null;
    const list = await this.#call(() => this.#payments.getPaymentList({ reference: attempt.attemptId }));
    return list.data?.[0] ?? null;
  }

  #call<T>(call: () => Promise<T>): Promise<T> {
    const ms = this.#config.timeoutMs;
    return retryOnce(() => withDeadline(ms, call), isRetryable);
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

function paymentRequest(request: AuthorizeRequest, channel: string): CkoPaymentRequest {
  const { card } = request;
  const descriptor = (request.descriptor ?? '')
    .replace(/[^A-Za-z0-9 .-]/g, '')
    .trim()
    .slice(0, 25)
    .trim();
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
    processing_channel_id: channel,
    capture: true,
    '3ds': { enabled: true },
    success_url: request.returnUrl,
    failure_url: request.returnUrl,
    payment_type: 'Regular',
    metadata: { obolus_intent: request.intentId, obolus_attempt: request.attemptId },
    ...(descriptor ? { billing_descriptor: { name: descriptor, city: 'Online' } } : {}),
  };
}
