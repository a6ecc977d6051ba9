import { Checkout } from 'checkout-sdk-node';
import { withDeadline } from '../../domain/payments/acquirer-calls.ts';
import type { CheckoutConfig } from './config.ts';
import { isLostAnswer } from './outcomes.ts';
import type {
  CkoAction,
  CkoActionAccepted,
  CkoCaptureRequest,
  CkoPayment,
  CkoPaymentList,
  CkoPaymentRequest,
  CkoRefundRequest,
} from './wire.ts';

/** checkout-sdk-node's payments client, as far as Obolus uses it. */
interface CkoPayments {
  request(body: CkoPaymentRequest, idempotencyKey: string): Promise<CkoPayment>;
  get(id: string): Promise<CkoPayment>;
  getPaymentList(query: { reference: string }): Promise<CkoPaymentList>;
  getActions(id: string): Promise<CkoAction[]>;
  refund(id: string, body: CkoRefundRequest, idempotencyKey: string): Promise<CkoActionAccepted>;
  void(id: string, body: CkoRefundRequest, idempotencyKey: string): Promise<CkoActionAccepted>;
  capture(id: string, body: CkoCaptureRequest, idempotencyKey: string): Promise<CkoActionAccepted>;
}

/**
 * The SDK's own timeout is this much longer than our deadline, so our deadline always ends a
 * call first and says so (DeadlinePassed); the SDK's ApiTimeout (408) is still read as a lost
 * answer should it ever come (decision 0191, test: checkout-connector.test.ts).
 */
export const SDK_TIMEOUT_MARGIN_MS = 2000;
/** One call of a connector operation (an authorization: the POST, a lookup, maybe a resend) gets at most 2.5 deadlines in all. */
const BUDGET_FACTOR = 2.5;

export const sdkTimeoutOf = (config: CheckoutConfig) => config.timeoutMs + SDK_TIMEOUT_MARGIN_MS;

/** A time budget for one operation: each call gets our deadline, or what is left of the budget. */
export class Budget {
  readonly #until: number;
  readonly #deadline: number;
  constructor(deadlineMs: number) {
    this.#deadline = deadlineMs;
    this.#until = Date.now() + deadlineMs * BUDGET_FACTOR;
  }

  /** Runs `call` under the deadline left; throws DeadlinePassed at once when nothing is left. */
  run<T>(call: () => Promise<T>): Promise<T> {
    const left = Math.min(this.#deadline, this.#until - Date.now());
    return withDeadline(Math.max(left, 0), call);
  }
}

/**
 * Checkout.com's API through the official SDK, with the idempotency it documents: only a 2xx
 * is kept under a Cko-Idempotency-Key, so a request whose answer was lost (a 5xx, a dropped
 * connection, a timeout) is looked up before it is ever sent again, and sent again only when
 * nothing was made (decision 0191).
 */
export class CheckoutCalls {
  readonly payments: CkoPayments;
  readonly deadlineMs: number;

  constructor(config: CheckoutConfig) {
    const host = config.apiBase.origin;
    const sdk = new Checkout(config.secretKey, { host, httpClient: 'axios', timeout: sdkTimeoutOf(config) });
    this.payments = (sdk as unknown as { payments: CkoPayments }).payments;
    this.deadlineMs = config.timeoutMs;
  }

  /** One call under our deadline, alone (reads: a lost read is simply asked again later). */
  read<T>(call: (payments: CkoPayments) => Promise<T>): Promise<T> {
    return new Budget(this.deadlineMs).run(() => call(this.payments));
  }

  /**
   * POST `send` once; if its answer is lost, `find` what it may have made; send again only when
   * `find` says nothing was made. `resent` tells the caller the request went twice.
   */
  async sendOnce<T>(
    budget: Budget,
    send: () => Promise<T>,
    find: () => Promise<T | null>,
  ): Promise<{ answer: T; resent: boolean }> {
    try {
      return { answer: await budget.run(send), resent: false };
    } catch (error) {
      if (!isLostAnswer(error)) throw error;
      const found = await budget.run(find);
      if (found) return { answer: found, resent: false };
      return { answer: await budget.run(send), resent: true };
    }
  }

  /** All payments made under our reference (an attempt id), newest first. */
  async byReference(budget: Budget, reference: string): Promise<CkoPayment[]> {
    // Our attempt ids are 24 hex digits: nothing in them needs encoding in the query.
    if (!/^[0-9a-f]{24}$/.test(reference)) return [];
    const list = await budget.run(() => this.payments.getPaymentList({ reference }));
    return list.data ?? [];
  }

  /** The refund or void made under `reference` on a payment, if Checkout.com lists one. */
  async actionOf(budget: Budget, paymentRef: string, type: 'Refund' | 'Void' | 'Capture', reference: string) {
    const actions = await budget.run(() => this.payments.getActions(paymentRef));
    const action = actions.find((a) => a.type === type && a.reference === reference);
    return action ? { action_id: action.id, reference } : null;
  }
}
