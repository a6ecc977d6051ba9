import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StripeProcessor } from '../src/connectors/stripe/processor.ts';
import { answerIssuerPage, authorizeRequest, connectorContract } from './support/connector-contract.ts';
import {
  intentsForAttempt,
  STRIPE_WEBHOOK_SECRET,
  startTestStripe as start,
  type startTestStripe,
  stripeProcessorFor,
} from './support/stripe-double.ts';

let double: Awaited<ReturnType<typeof startTestStripe>>;
let processor: StripeProcessor;
const warnings: Record<string, unknown>[] = [];

beforeAll(async () => {
  double = await start();
  processor = stripeProcessorFor(double.config(), warnings);
});
afterAll(() => double.close());
// Every request the connector sent and every answer the double gave, against the acquirer's definitions.
afterEach(() => double.contract.assertClean());

connectorContract('Stripe (official SDK against the Stripe double)', {
  processor: () => processor,
  cards: {
    approve: '4242424242424242',
    insufficientFunds: '4000000000009995',
    lostCard: '4000000000009987',
    threeDS: '4000000000003220',
    oddIssuer: '4000000000000077',
  },
  async arm(fault, times = 1) {
    const faults = {
      delay_after_commit: { fault, delayMs: 1500 },
      rate_limit_429: { fault, retryAfter: 1 },
    } as Record<string, unknown>;
    double.arm('create', (faults[fault] ?? { fault }) as never, times);
  },
  paymentsFor: (attemptId) => intentsForAttempt(double, attemptId).length,
  answerChallenge: async (redirectUrl, passed) => void (await answerIssuerPage(redirectUrl, passed)),
  async reset() {
    double.reset();
  },
  get webhooks() {
    return double.webhooks;
  },
  webhookSecret: STRIPE_WEBHOOK_SECRET,
  events: { approved: 'payment_intent.succeeded', refund: 'refund.created', dispute: 'charge.dispute.created' },
  dispute: (paymentRef) => void double.payments.dispute(paymentRef),
});

describe('Stripe connector: what goes on the wire', () => {
  it('one POST /v1/payment_intents, form-encoded, confirm=true, the card, metadata, return_url, Idempotency-Key = attempt id', async () => {
    double.reset();
    const request = authorizeRequest('4242424242424242', { descriptor: 'A VERY LONG <SHOP> DESCRIPTOR "X"' });
    await processor.authorize(request);
    const [sent, ...more] = double.requests;
    expect(more).toEqual([]);
    expect(sent).toMatchObject({
      method: 'POST',
      path: '/v1/payment_intents',
      idempotencyKey: request.attemptId,
      authorization: `Bearer ${double.secretKey}`,
      form: {
        amount: '2500',
        currency: 'usd',
        confirm: 'true',
        payment_method_data: {
          type: 'card',
          card: { number: '4242424242424242', exp_month: '12', exp_year: '2034', cvc: '123' },
          billing_details: { name: 'Ada Lovelace' },
        },
        metadata: { obolus_intent: request.intentId, obolus_attempt: request.attemptId },
        return_url: request.returnUrl,
        // Cut to the room the longest account prefix leaves (22 - 10 - '* '), forbidden characters dropped.
        statement_descriptor_suffix: 'A VERY LON',
      },
    });
  });

  it('card details and Stripe ids come back on an approval; odd issuer details are left to the domain to tidy', async () => {
    const outcome = await processor.authorize(authorizeRequest('4000000000000077'));
    expect(outcome).toMatchObject({
      kind: 'approved',
      issuer: { brand: 'Visa', country: 'gb', funding: 'credit' },
      refs: { payment: expect.stringMatching(/^pi_/), charge: expect.stringMatching(/^ch_/) },
      authorizationCode: expect.stringMatching(/^[0-9A-F]{6}$/),
    });
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000009979', 'card_declined'],
    ['4100000000000019', 'card_declined'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
  ])('card %s declined by Stripe (402 card_error) -> %s', async (number, code) => {
    expect(await processor.authorize(authorizeRequest(number))).toMatchObject({ kind: 'declined', code });
  });

  it("Stripe's processing_error is a failure where nothing moved, not a decline", async () => {
    expect((await processor.authorize(authorizeRequest('4000000000000119'))).kind).toBe('error');
  });

  it('an amount Stripe refuses (invalid_request_error) is an error with nothing charged', async () => {
    const request = authorizeRequest('4242424242424242', { amount: 49 });
    expect((await processor.authorize(request)).kind).toBe('error');
    expect(intentsForAttempt(double, request.attemptId)).toHaveLength(0);
  });

  it('a wrong key (authentication error) is an error with nothing charged, and the key is never logged', async () => {
    const wrong = stripeProcessorFor({ ...double.config(), secretKey: 'sk_live_wrong' }, warnings);
    expect((await wrong.authorize(authorizeRequest('4242424242424242'))).kind).toBe('error');
    expect(JSON.stringify(warnings)).not.toContain('sk_live_');
    expect(JSON.stringify(warnings)).not.toContain('4242424242424242');
  });

  it('409 on every try (the same key still in progress) is unknown, never declined', async () => {
    double.arm('create', { fault: 'conflict_409' }, 2);
    expect((await processor.authorize(authorizeRequest('4242424242424242'))).kind).toBe('unknown');
  });

  it('the same idempotency key with another body (the first may have charged) is unknown', async () => {
    const request = authorizeRequest('4242424242424242');
    await processor.authorize(request);
    expect((await processor.authorize({ ...request, amount: 9999 })).kind).toBe('unknown');
    expect(intentsForAttempt(double, request.attemptId)).toHaveLength(1);
  });

  it('an unanswered call ends on its own deadline: two sends of one key, each given up, unknown', async () => {
    // The double answers (an approval) only 20 s after each send: 'unknown' means the connector
    // gave up on both sends itself. Its whole time is then its configuration, two sends of at
    // most the timeout each and the SDK's retry delay, not a duration measured on a loaded
    // machine (0272).
    double.arm('create', { fault: 'delay_after_commit', delayMs: 20_000 }, 2);
    const request = authorizeRequest('4242424242424242');
    const sentBefore = double.requests.length;
    expect((await processor.authorize(request)).kind).toBe('unknown');
    const sent = double.requests.slice(sentBefore);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/payment_intents', 'POST /v1/payment_intents']);
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(1);
  });
});
