import Stripe from 'stripe';
import { decidedOrNull } from '../../domain/payments/acquirer-calls.ts';
import type {
  AttemptRef,
  AuthorizeOutcome,
  AuthorizeRequest,
  CaptureOutcome,
  ChallengeAnswer,
  DescriptorCheck,
  HeldPayment,
  Processor,
  ProcessorNotice,
  RefundOutcome,
  RefundRequest,
  ReversalOutcome,
} from '../../domain/payments/ports.ts';
import type { ConnectorLog } from '../connector-log.ts';
import type { StripeConfig } from './config.ts';
import { LONGEST_PREFIX, stripeSuffixOf } from './descriptor.ts';
import { readStripeNotice } from './notices.ts';
import { fundsOf, outcomeOfError, outcomeOfIntent } from './outcomes.ts';

/** The SDK retries a lost answer once at once, with the same Idempotency-Key (decision 0041). */
const MAX_NETWORK_RETRIES = 1;

/**
 * Live payments through Stripe's PaymentIntents API, with the official SDK (docs/live.md).
 * Every call answers an outcome, never a throw: a throw would be recorded as "nothing
 * charged", which after the request left is not known.
 */
export class StripeProcessor implements Processor {
  readonly name = 'stripe';
  readonly frameSources: readonly string[];
  readonly #stripe: Stripe;
  readonly #webhookSecret: string;
  readonly #prefixLength: number;
  readonly #log: ConnectorLog | undefined;

  constructor(config: StripeConfig, log?: ConnectorLog) {
    const { apiBase } = config;
    this.#stripe = new Stripe(config.secretKey, {
      host: apiBase.hostname,
      port: Number(apiBase.port || (apiBase.protocol === 'https:' ? 443 : 80)),
      protocol: apiBase.protocol === 'https:' ? 'https' : 'http',
      maxNetworkRetries: MAX_NETWORK_RETRIES,
      timeout: config.timeoutMs,
      telemetry: false,
      appInfo: { name: 'Obolus' },
    });
    this.#webhookSecret = config.webhookSecret;
    this.#prefixLength = config.descriptorPrefix?.length ?? LONGEST_PREFIX;
    this.#log = log;
    // Issuers' 3-D Secure pages live on their own hosts: any https origin; a loopback double over http.
    this.frameSources = apiBase.protocol === 'https:' ? ['https:'] : [apiBase.origin];
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    // Sandbox money is never sent to an acquirer, whatever the caller got wrong upstream.
    if (request.mode !== 'live') {
      return { kind: 'error', issuer: null, message: 'The Stripe connector does not process sandbox payments.' };
    }
    try {
      const suffix = request.descriptor ? this.statementDescriptor(request.descriptor) : null;
      const params = createParams(request, suffix?.ok ? suffix.sent : null);
      const pi = await this.#stripe.paymentIntents.create(params, { idempotencyKey: request.attemptId });
      return outcomeOfIntent(pi);
    } catch (error) {
      return this.#failed(error, request.attemptId, 'authorize');
    }
  }

  /** The shopper is back from the issuer's page (our return_url): Stripe knows the result. */
  async completeChallenge(challengeRef: string, _answer: ChallengeAnswer): Promise<AuthorizeOutcome> {
    try {
      return outcomeOfIntent(await this.#retrieve(challengeRef), true);
    } catch (error) {
      const outcome = this.#failed(error, challengeRef, 'challenge');
      // A failed read changes nothing at Stripe: the attempt stays open for the webhook or the expiry.
      return outcome.kind === 'error' ? { ...outcome, kind: 'unknown' } : outcome;
    }
  }

  async lookup(attempt: AttemptRef): Promise<AuthorizeOutcome | null> {
    // Not found: Stripe has no PaymentIntent for it (yet: search lags up to a minute).
    return decidedOrNull(
      () => (attempt.paymentRef ? this.#retrieve(attempt.paymentRef) : this.#search(attempt.attemptId)),
      (pi) => outcomeOfIntent(pi),
      (error) => this.#warn(attempt.attemptId, 'lookup', error),
    );
  }

  async attemptIdOf(paymentRef: string): Promise<string | null> {
    try {
      return (await this.#retrieve(paymentRef)).metadata?.obolus_attempt ?? null;
    } catch (error) {
      this.#warn(paymentRef, 'lookup', error);
      return null;
    }
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    return this.#refund(request.attempt, request.amount, request.refundId);
  }

  /**
   * Gives a whole PaymentIntent back (decision 0195): cancelled while requires_capture (the
   * authorization is released), refunded in full once succeeded. Keyed by the PaymentIntent.
   */
  async reverse(payment: { attemptId: string; paymentRef: string }): Promise<ReversalOutcome> {
    try {
      const pi = await this.#retrieve(payment.paymentRef);
      if (pi.status === 'canceled') return { kind: 'succeeded', method: 'void', ref: pi.id };
      const funds = fundsOf(pi);
      if (funds === 'authorized') return this.voidAuthorization({ paymentRef: pi.id, key: `reversal_${pi.id}` });
      if (funds === null) return { kind: 'nothing_taken', status: pi.status };
      const refund = await this.#refund(
        { attemptId: payment.attemptId, paymentRef: pi.id },
        undefined,
        `reversal_${pi.id}`,
      );
      if (refund.kind === 'failed' || refund.kind === 'unknown') return { kind: refund.kind, message: refund.message };
      return { ...refund, method: 'refund' };
    } catch (error) {
      this.#warn(payment.attemptId, 'reverse', error);
      return {
        kind: outcomeOfError(error).kind === 'unknown' ? 'unknown' : 'failed',
        message: 'Stripe did not take it back.',
      };
    }
  }

  /** Captures a requires_capture PaymentIntent, all of it or `amount` (Stripe releases the rest; decision 0241). */
  async capture(request: { paymentRef: string; amount: number; key: string }): Promise<CaptureOutcome> {
    try {
      const pi = await this.#stripe.paymentIntents.capture(
        request.paymentRef,
        { amount_to_capture: request.amount },
        { idempotencyKey: request.key },
      );
      if (pi.status === 'succeeded') return { kind: 'succeeded', ref: pi.id };
      return { kind: 'failed', message: `Stripe says the PaymentIntent is ${pi.status}.` };
    } catch (error) {
      this.#warn(request.paymentRef, 'capture', error);
      const unknown = outcomeOfError(error).kind === 'unknown';
      return { kind: unknown ? 'unknown' : 'failed', message: 'Stripe did not capture the PaymentIntent.' };
    }
  }

  /** Cancels a PaymentIntent not captured yet: its authorization is released (Stripe's void). */
  async voidAuthorization(request: { paymentRef: string; key: string }): Promise<ReversalOutcome> {
    try {
      const pi = await this.#stripe.paymentIntents.cancel(request.paymentRef, {}, { idempotencyKey: request.key });
      return { kind: 'succeeded', method: 'void', ref: pi.id };
    } catch (error) {
      this.#warn(request.paymentRef, 'void', error);
      const unknown = outcomeOfError(error).kind === 'unknown';
      return { kind: unknown ? 'unknown' : 'failed', message: 'Stripe did not cancel the PaymentIntent.' };
    }
  }

  /** The PaymentIntents Stripe holds for an attempt: search by its metadata, and the one we know of. */
  async paymentsOf(attempt: AttemptRef): Promise<HeldPayment[] | null> {
    try {
      const found = await this.#searchAll(attempt.attemptId);
      const known = attempt.paymentRef && !found.some((pi) => pi.id === attempt.paymentRef);
      // Search lags up to a minute behind a PaymentIntent we already know of.
      const all = known ? [await this.#retrieve(attempt.paymentRef as string), ...found] : found;
      return all.map((pi) => ({ payment: pi.id, approved: fundsOf(pi) !== null, funds: fundsOf(pi) }));
    } catch (error) {
      this.#warn(attempt.attemptId, 'lookup', error);
      return null;
    }
  }

  /** What statement_descriptor_suffix an intent's descriptor becomes, or why it cannot (decision 0198). */
  statementDescriptor(descriptor: string): DescriptorCheck {
    return stripeSuffixOf(descriptor, this.#prefixLength);
  }

  /** Checks a webhook's Stripe-Signature on the raw body and says what it reports. Throws when forged or stale. */
  readNotice(rawBody: Buffer, signature: string): ProcessorNotice {
    return readStripeNotice(this.#stripe, rawBody, signature, this.#webhookSecret);
  }

  async #refund(attempt: AttemptRef, amount: number | undefined, key: string): Promise<RefundOutcome> {
    try {
      const paymentRef = attempt.paymentRef ?? (await this.#search(attempt.attemptId))?.id;
      if (!paymentRef) return { kind: 'failed', ref: null, message: 'Stripe has no payment for this attempt.' };
      const params: Stripe.RefundCreateParams = { payment_intent: paymentRef, metadata: { obolus_refund: key } };
      if (amount !== undefined) params.amount = amount;
      const refund = await this.#stripe.refunds.create(params, { idempotencyKey: key });
      return refundOutcomeOf(refund);
    } catch (error) {
      const outcome = outcomeOfError(error);
      this.#warn(attempt.attemptId, 'refund', error);
      if (outcome.kind === 'unknown') return { kind: 'unknown', message: outcome.message };
      return { kind: 'failed', ref: null, message: 'Stripe refused the refund.' };
    }
  }

  #retrieve(id: string): Promise<Stripe.PaymentIntent> {
    return this.#stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] });
  }

  async #search(attemptId: string): Promise<Stripe.PaymentIntent | null> {
    return (await this.#searchAll(attemptId))[0] ?? null;
  }

  async #searchAll(attemptId: string): Promise<Stripe.PaymentIntent[]> {
    // Our attempt ids are 24 hex digits: nothing in them can break out of the query's quotes.
    if (!/^[0-9a-f]{24}$/.test(attemptId)) return [];
    const found = await this.#stripe.paymentIntents.search({
      query: `metadata['obolus_attempt']:'${attemptId}'`,
      expand: ['data.latest_charge'],
    });
    return found.data;
  }

  #failed(error: unknown, attemptId: string, call: string): AuthorizeOutcome {
    this.#warn(attemptId, call, error);
    return error instanceof Stripe.errors.StripeError ? outcomeOfError(error) : guard(error);
  }

  #warn(attemptId: string, call: string, error: unknown): void {
    const e = error as Partial<Stripe.errors.StripeError>;
    // Type, status and code only: a Stripe error's message may quote the request.
    this.#log?.warn(
      { attempt_id: attemptId, call, type: e.type ?? 'Error', status: e.statusCode ?? null, code: e.code ?? null },
      'stripe call failed',
    );
  }
}

/** Something other than a Stripe error escaped the SDK: it may have happened after the request left. */
const guard = (_error: unknown): AuthorizeOutcome => outcomeOfError({});

function createParams(request: AuthorizeRequest, suffix: string | null): Stripe.PaymentIntentCreateParams {
  const { card } = request;
  const params = {
    amount: request.amount,
    currency: 'usd',
    confirm: true,
    ...(request.capture === 'manual' ? { capture_method: 'manual' } : {}),
    // Raw card data: the account must have it enabled (docs/live.md). Never logged.
    payment_method_data: {
      type: 'card',
      card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
      billing_details: { name: card.name },
    },
    metadata: { obolus_intent: request.intentId, obolus_attempt: request.attemptId },
    return_url: request.returnUrl,
    expand: ['latest_charge'],
    // A descriptor Stripe cannot print (an intent made before the rules were checked): the account's own.
    ...(suffix ? { statement_descriptor_suffix: suffix } : {}),
  };
  return params as Stripe.PaymentIntentCreateParams;
}

function refundOutcomeOf(refund: Stripe.Refund): RefundOutcome {
  if (refund.status === 'succeeded') return { kind: 'succeeded', ref: refund.id };
  if (refund.status === 'failed' || refund.status === 'canceled') {
    return { kind: 'failed', ref: refund.id, message: `Stripe says the refund ${refund.status}.` };
  }
  return { kind: 'pending', ref: refund.id };
}
