import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  dispute: (paymentRef) => void double.payments.dispute(paymentRef),
});

describe('Checkout.com connector: what goes on the wire', () => {
  it('one POST /payments, JSON, the full card, reference and Cko-Idempotency-Key = attempt id', async () => {
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
        success_url: request.returnUrl,
        failure_url: request.returnUrl,
        metadata: { obolus_intent: request.intentId, obolus_attempt: request.attemptId },
      },
    });
  });

  it("an approval carries the card's scheme, issuer country and bank, and the payment id", async () => {
    expect(await processor.authorize(authorizeRequest('4242424242424242'))).toMatchObject({
      kind: 'approved',
      issuer: { brand: 'Visa', country: 'US', bank: 'Checkout Double Bank', funding: 'credit' },
      refs: { payment: expect.stringMatching(/^pay_/) },
      authorizationCode: expect.stringMatching(/^[0-9A-F]{6}$/),
    });
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000009979', 'card_declined'],
    ['4100000000000019', 'card_declined'],
  ])('card %s: Declined with its response_code (20xxx soft, 30xxx hard, 4xxxx risk) -> %s', async (number, code) => {
    expect(await processor.authorize(authorizeRequest(number))).toMatchObject({ kind: 'declined', code });
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

  it('409 on every try (the same key still in progress) is unknown, never declined', async () => {
    double.arm('create', { fault: 'conflict_409' }, 2);
    expect((await processor.authorize(authorizeRequest('4242424242424242'))).kind).toBe('unknown');
  });

  it('our own deadline bounds an unanswered call: 2 tries, then unknown', async () => {
    double.arm('create', { fault: 'delay_after_commit', delayMs: 3000 }, 2);
    const started = Date.now();
    expect((await processor.authorize(authorizeRequest('4242424242424242'))).kind).toBe('unknown');
    expect(Date.now() - started).toBeLessThan(2 * 600 + 500);
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
