import { ApiTimeout } from 'checkout-sdk-node/dist/services/errors.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sdkTimeoutOf } from '../src/connectors/checkout/calls.ts';
import { isLostAnswer, outcomeOfError } from '../src/connectors/checkout/outcomes.ts';
import type { CheckoutProcessor } from '../src/connectors/checkout/processor.ts';
import {
  CHECKOUT_CHANNEL,
  CHECKOUT_WEBHOOK_SECRET,
  checkoutProcessorFor,
  paymentsForAttempt,
  startTestCheckout as start,
  type startTestCheckout,
} from './support/checkout-double.ts';
import { answerIssuerPage, authorizeRequest, connectorContract } from './support/connector-contract.ts';

let double: Awaited<ReturnType<typeof startTestCheckout>>;
let processor: CheckoutProcessor;
const warnings: Record<string, unknown>[] = [];

beforeAll(async () => {
  double = await start();
  processor = checkoutProcessorFor(double.config(), warnings);
});
afterAll(() => double.close());
// Every request the connector sent and every answer the double gave, against the acquirer's definitions.
afterEach(() => double.contract.assertClean());

connectorContract('Checkout.com (checkout-sdk-node against the Checkout.com double)', {
  processor: () => processor,
  cards: {
    approve: '4242424242424242',
    insufficientFunds: '4000000000009995',
    lostCard: '4000000000009987',
    threeDS: '4485040371536584',
    oddIssuer: '4000000000000077',
  },
  async arm(fault, times = 1) {
    const faults = { delay_after_commit: { fault, delayMs: 1500 } } as Record<string, unknown>;
    double.arm('create', (faults[fault] ?? { fault }) as never, times);
  },
  impossible: ['conflict_409'],
  paymentsFor: (attemptId) => paymentsForAttempt(double, attemptId).length,
  async answerChallenge(redirectUrl, passed) {
    const back = await answerIssuerPage(redirectUrl, passed);
    expect(back.searchParams.get('cko-session-id')).toMatch(/^sid_/);
  },
  async reset() {
    double.reset();
  },
  get webhooks() {
    return double.webhooks;
  },
  webhookSecret: CHECKOUT_WEBHOOK_SECRET,
  events: { approved: 'payment_approved', refund: 'payment_refunded', dispute: 'dispute_evidence_required' },
  dispute: (paymentRef) => void double.actions.dispute(paymentRef),
});

describe('Checkout.com connector: what goes on the wire', () => {
  it('one POST /payments, JSON, the full card, reference and Cko-Idempotency-Key = attempt id, 3-D Secure with attempt_n3d', async () => {
    double.reset();
    const request = authorizeRequest('4242424242424242');
    await processor.authorize(request);
    const [sent, ...more] = double.requests;
    expect(more).toEqual([]);
    expect(sent).toMatchObject({
      method: 'POST',
      path: '/payments',
      idempotencyKey: request.attemptId,
      authorization: `Bearer ${double.secretKey}`,
      body: {
        source: {
          type: 'card',
          number: '4242424242424242',
          expiry_month: 12,
          expiry_year: 2034,
          cvv: '123',
          name: 'Ada Lovelace',
        },
        amount: 2500,
        currency: 'USD',
        reference: request.attemptId,
        processing_channel_id: CHECKOUT_CHANNEL,
        capture: true,
        '3ds': { enabled: true, attempt_n3d: true },
        success_url: request.returnUrl,
        failure_url: request.returnUrl,
        metadata: { obolus_intent: request.intentId, obolus_attempt: request.attemptId },
      },
    });
  });

  it("an approval carries the card's scheme, issuer country and bank, the payment id, and Authorized: not yet captured", async () => {
    expect(await processor.authorize(authorizeRequest('4242424242424242'))).toMatchObject({
      kind: 'approved',
      issuer: { brand: 'Visa', country: 'US', bank: 'Checkout Double Bank', funding: 'credit' },
      refs: { payment: expect.stringMatching(/^pay_/) },
      authorizationCode: expect.stringMatching(/^[0-9A-F]{6}$/),
      funds: 'authorized',
      money: { amount: 2500, currency: 'USD' },
      acquirer: 'Authorized 10000',
    });
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4544249167673670', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000009979', 'card_declined'],
    ['4100000000000019', 'card_declined'],
  ])('card %s: Declined with its response_code (20xxx soft, 30xxx hard, 4xxxx risk) -> %s', async (number, code) => {
    expect(await processor.authorize(authorizeRequest(number))).toMatchObject({ kind: 'declined', code });
  });

  it('a card whose issuer is not enrolled in 3-D Secure is charged without authentication (attempt_n3d)', async () => {
    const request = authorizeRequest('4000000000000036');
    expect(await processor.authorize(request)).toMatchObject({ kind: 'approved', threeDS: 'not_required' });
    expect(paymentsForAttempt(double, request.attemptId)).toHaveLength(1);
  });

  it('OBOLUS_CHECKOUT_3DS=always: no attempt_n3d, and the same card is declined, nothing charged', async () => {
    const strict = checkoutProcessorFor({ ...double.config(), threeDS: 'always' });
    double.reset();
    expect(await strict.authorize(authorizeRequest('4000000000000036'))).toMatchObject({
      kind: 'declined',
      code: 'card_declined',
    });
    expect(double.requests[0]?.body).toMatchObject({ '3ds': { enabled: true, attempt_n3d: false } });
  });

  it('422 (a request Checkout.com refuses) is an error with nothing charged', async () => {
    const request = authorizeRequest('123');
    expect((await processor.authorize(request)).kind).toBe('error');
    expect(paymentsForAttempt(double, request.attemptId)).toHaveLength(0);
  });

  it('a wrong key (401) is an error with nothing charged; neither key nor card is logged', async () => {
    const wrong = checkoutProcessorFor({ ...double.config(), secretKey: `sk_${'w'.repeat(27)}` }, warnings);
    expect((await wrong.authorize(authorizeRequest('4242424242424242'))).kind).toBe('error');
    expect(warnings.at(-1)).toMatchObject({ status: 401 });
    expect(JSON.stringify(warnings)).not.toContain('sk_');
    expect(JSON.stringify(warnings)).not.toContain('4242424242424242');
  });

  it('a refund is accepted (202) and stays pending until its webhook', async () => {
    const request = authorizeRequest('4242424242424242');
    const approved = await processor.authorize(request);
    const paymentRef = approved.kind === 'approved' ? (approved.refs?.payment ?? null) : null;
    const refund = await processor.refund({
      refundId: 're_x',
      attempt: { attemptId: request.attemptId, paymentRef },
      amount: 500,
    });
    expect(refund).toMatchObject({ kind: 'pending', ref: expect.stringMatching(/^act_/) });
    expect(double.requests.at(-1)).toMatchObject({
      path: `/payments/${paymentRef}/refunds`,
      idempotencyKey: 're_x',
      body: { amount: 500, reference: 're_x' },
    });
  });
});

/** Requests to the double since the last reset, as `METHOD path`. */
const sentSince = () => double.requests.map((r) => `${r.method} ${r.path}`);

describe('Checkout.com idempotency as documented: 2xx kept only, 429 for a duplicate running, lookups before resends', () => {
  it('approved, then a 500 (not kept under the key): the payment is found by reference, never sent again', async () => {
    double.reset();
    double.arm('create', { fault: 'error_500_after' });
    const request = authorizeRequest('4242424242424242');
    expect(await processor.authorize(request)).toMatchObject({
      kind: 'approved',
      refs: { payment: expect.any(String) },
    });
    expect(sentSince()).toEqual(['POST /payments', 'GET /payments']);
    expect(paymentsForAttempt(double, request.attemptId)).toHaveLength(1);
  });

  it('a 500 before anything was made: the lookup finds nothing, so it is sent again once, told as resent', async () => {
    double.reset();
    double.arm('create', { fault: 'error_500_before' });
    const request = authorizeRequest('4242424242424242');
    expect(await processor.authorize(request)).toMatchObject({ kind: 'approved', resent: true });
    expect(sentSince()).toEqual(['POST /payments', 'GET /payments', 'POST /payments']);
    expect(paymentsForAttempt(double, request.attemptId)).toHaveLength(1);
  });

  it('approved, a 500, and a list that lags: the resend makes a second payment, and the outcome says it was resent', async () => {
    double.reset();
    double.arm('create', { fault: 'error_500_after' });
    double.arm('search', { fault: 'stale_list' });
    const request = authorizeRequest('4242424242424242');
    expect(await processor.authorize(request)).toMatchObject({ kind: 'approved', resent: true });
    // The domain finds and gives back the other one (live-checkout-follow-ups.test.ts).
    expect(paymentsForAttempt(double, request.attemptId)).toHaveLength(2);
    const found = await processor.lookup({ attemptId: request.attemptId, paymentRef: null });
    const [newest, oldest] = paymentsForAttempt(double, request.attemptId).reverse();
    expect(found).toMatchObject({
      kind: 'approved',
      refs: { payment: oldest?.id },
      duplicates: [{ payment: newest?.id }],
    });
  });

  it('a lookup that fails after a lost answer: unknown, and never sent again blindly', async () => {
    double.reset();
    double.arm('create', { fault: 'error_500_after' });
    double.arm('search', { fault: 'error_500_before' });
    const request = authorizeRequest('4242424242424242');
    expect((await processor.authorize(request)).kind).toBe('unknown');
    expect(sentSince()).toEqual(['POST /payments', 'GET /payments']);
  });

  it('our deadline ends a slow call before the SDK does (ApiTimeout comes later); approved in fact, found: charged once', async () => {
    double.reset();
    warnings.length = 0;
    double.arm('create', { fault: 'delay_after_commit', delayMs: 1500 });
    const request = authorizeRequest('4242424242424242');
    expect(await processor.authorize(request)).toMatchObject({ kind: 'approved' });
    expect(warnings).toEqual([]);
    expect(sentSince()).toEqual(['POST /payments', 'GET /payments']);
    expect(paymentsForAttempt(double, request.attemptId)).toHaveLength(1);
    expect(sdkTimeoutOf(double.config())).toBeGreaterThan(double.config().timeoutMs);
  });

  it('a slow POST and a slow lookup: unknown within the budget, logged as our deadline, not resent', async () => {
    double.reset();
    warnings.length = 0;
    double.arm('create', { fault: 'delay_after_commit', delayMs: 1500 });
    double.arm('search', { fault: 'delay_after_commit', delayMs: 1500 });
    expect((await processor.authorize(authorizeRequest('4242424242424242'))).kind).toBe('unknown');
    expect(warnings).toMatchObject([{ call: 'authorize', type: 'DeadlinePassed', status: null }]);
    expect(sentSince()).toEqual(['POST /payments', 'GET /payments']);
  });

  it('two requests for one attempt at once: the second gets 429 (the first still running) and is unknown; one payment', async () => {
    double.reset();
    double.arm('create', { fault: 'delay_after_commit', delayMs: 300 });
    const request = authorizeRequest('4242424242424242');
    const [first, second] = await Promise.all([processor.authorize(request), processor.authorize(request)]);
    expect([first.kind, second.kind].sort()).toEqual(['approved', 'unknown']);
    expect(paymentsForAttempt(double, request.attemptId)).toHaveLength(1);
  });

  it('429 is not resent at once (Checkout.com asks to wait 30 s): unknown, one request', async () => {
    double.reset();
    double.arm('create', { fault: 'rate_limit_429' });
    expect((await processor.authorize(authorizeRequest('4242424242424242'))).kind).toBe('unknown');
    expect(sentSince()).toEqual(['POST /payments']);
  });

  it('a 2xx is replayed under its key: the same payment, however often the same attempt is sent', async () => {
    const request = authorizeRequest('4242424242424242');
    const first = await processor.authorize(request);
    expect(await processor.authorize(request)).toEqual(first);
    expect(paymentsForAttempt(double, request.attemptId)).toHaveLength(1);
  });
});

describe('Checkout.com refunds and voids: Authorized is voided, Captured is refunded; a lost answer stays pending', () => {
  const capturedPayment = async () => {
    const request = authorizeRequest('4242424242424242', { amount: 3000 });
    const approved = await processor.authorize(request);
    const paymentRef = approved.kind === 'approved' ? (approved.refs?.payment ?? null) : null;
    return { attempt: { attemptId: request.attemptId, paymentRef } };
  };

  it("a refund whose answer is lost is found among the payment's actions by its reference: pending, made once", async () => {
    const { attempt } = await capturedPayment();
    double.reset();
    double.arm('refund', { fault: 'error_500_after' });
    expect(await processor.refund({ refundId: 're_lost', attempt, amount: 1000 })).toMatchObject({
      kind: 'pending',
      ref: expect.stringMatching(/^act_/),
    });
    const actions = `GET /payments/${attempt.paymentRef}/actions`;
    // Read first (a resend must not refund twice), sent once, its answer lost, read again: found.
    expect(sentSince()).toEqual([actions, `POST /payments/${attempt.paymentRef}/refunds`, actions]);
    const refunds = double.payments.find(String(attempt.paymentRef))?.actions.filter((a) => a.type === 'Refund');
    expect(refunds).toHaveLength(1);
  });

  it('a refund that times out is found made (pending with its id); with the actions unreadable it is unknown, never failed', async () => {
    const { attempt } = await capturedPayment();
    double.arm('refund', { fault: 'delay_after_commit', delayMs: 1500 });
    expect(await processor.refund({ refundId: 're_slow', attempt, amount: 1000 })).toMatchObject({
      kind: 'pending',
      ref: expect.stringMatching(/^act_/),
    });
    double.arm('actions', { fault: 'error_500_before' });
    expect(await processor.refund({ refundId: 're_unread', attempt, amount: 1000 })).toMatchObject({ kind: 'unknown' });
  });

  it("the SDK's own ApiTimeout (http_code 408) is a lost answer: unknown, never a refusal", () => {
    expect(outcomeOfError(new ApiTimeout())).toMatchObject({ kind: 'unknown' });
    expect(isLostAnswer(new ApiTimeout())).toBe(true);
  });

  it('a refund of a payment not captured yet (403 Refund not allowed) is unknown: sent again once captured', async () => {
    double.reset();
    double.payments.captureDelayMs = 60_000;
    const { attempt } = await capturedPayment();
    expect(await processor.refund({ refundId: 're_early', attempt, amount: 1000 })).toMatchObject({ kind: 'unknown' });
    double.payments.captureDelayMs = 0;
  });
});
