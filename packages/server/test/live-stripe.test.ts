import { beforeEach, describe, expect, it } from 'vitest';
import { DAY, MINUTE } from '../src/clock.ts';
import { expireDueIntents } from '../src/domain/payments/expire.ts';
import { paymentDeps } from '../src/services.ts';
import { ENGINES } from './support/engines.ts';
import { DROPPED_ANSWER, type LiveStripe, LOST_ANSWER, useLiveStripe } from './support/live-stripe.ts';
import { intentsForAttempt } from './support/stripe-double.ts';

/** Live payments through the widget API, the Stripe connector and the Stripe double (real SDK, loopback). */
describe.each(ENGINES)(
  'live payments through Stripe (%s)',
  (engine) => {
    const suite = useLiveStripe(engine);
    let s: LiveStripe;
    beforeEach(() => {
      s = suite();
    });
    const createSandbox = (descriptor: string) =>
      s.t.call('POST', '/api/v1/payment-intents', {
        key: s.shop.secretKey,
        body: { amount: 2000, currency: 'USD', mode: 'sandbox', descriptor },
      });

    it('an approval: succeeded, with the card details and Stripe references on the transaction record', async () => {
      const intent = await s.liveIntent({ amount: 12345, descriptor: 'OBOLUS TEST SHOP', externalid: 'order-9' });
      const res = await s.pay(intent.client_secret, '4242424242424242', { cvc: '918', name: 'Grace Hopper' });
      expect(res.json).toMatchObject({ success: true, status: 'succeeded', payment_intent: intent.id });
      expect((await s.intentOf(intent.id)).status).toBe('succeeded');
      const [pi, ...more] = intentsForAttempt(s.double, res.json.transaction_id);
      expect(more).toEqual([]);
      expect(await s.record(res.json.transaction_id)).toMatchObject({
        status: 20,
        amountpaid: 123.45,
        mode: 'live',
        card: '424242******4242',
        cardholder: 'Grace Hopper',
        cardbank: 'Stripe Test Bank',
        cardcountry: 'US',
        card_funding: 'credit',
        paymenttypetext: 'Visa',
        externalid: 'order-9',
        processor: 'stripe',
        processor_payment_id: pi?.pi.id,
        processor_charge_id: pi?.charge?.id,
        authorization_code: expect.stringMatching(/^[0-9A-F]{6}$/),
        requires_review: false,
      });
      // The CVC and full number exist only at Stripe: not in our rows, events or logs; nor the secret key.
      const { db } = s.t.server.services.database;
      const stored = JSON.stringify([
        await db.selectFrom('transactions').selectAll().execute(),
        await db.selectFrom('events').selectAll().execute(),
      ]);
      expect(stored).not.toContain('4242424242424242');
      expect(stored).not.toMatch(/"cvc"/);
      expect(s.t.logs()).not.toContain('4242424242424242');
      expect(s.t.logs()).not.toContain(s.double.secretKey);
    });

    it('with a live connector, an intent without a mode is live (the spec default)', async () => {
      const res = await s.t.call('POST', '/api/v1/payment-intents', {
        key: s.shop.secretKey,
        body: { amount: 2000, currency: 'USD' },
      });
      expect(res.json).toMatchObject({ mode: 'live', status: 'requires_payment' });
    });

    it('item 7: a descriptor Stripe cannot print is refused at creation, naming descriptor; one it can is adapted and sent', async () => {
      for (const descriptor of ['東京ショップ', '12345 67890 12']) {
        const refused = await s.t.call('POST', '/api/v1/payment-intents', {
          key: s.shop.secretKey,
          body: { amount: 2000, currency: 'USD', descriptor },
        });
        expect(refused.status).toBe(400);
        expect(refused.json.error).toMatchObject({
          type: 'invalid_request',
          code: 'parameter_invalid',
          param: 'descriptor',
        });
      }
      // Sandbox intents never reach Stripe: their descriptor is the spec's only (5 to 100 characters).
      expect((await createSandbox('東京ショップ')).status).toBe(200);
      const intent = await s.liveIntent({ descriptor: `Café "L'Étoile" <Paris>` });
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('succeeded');
      const sent = s.double.requests.find((r) => r.path === '/v1/payment_intents' && r.method === 'POST');
      expect(sent?.form).toMatchObject({ statement_descriptor_suffix: 'Cafe LEtoi' });
    });

    it('odd issuer details (a 150-character bank, a lower-case country) never turn an approval into an unknown', async () => {
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4000000000000077');
      expect(res.json.status).toBe('succeeded');
      const record = await s.record(res.json.transaction_id);
      expect(record.cardcountry).toBe('GB');
      expect(record.cardbank).toHaveLength(100);
      expect(record.cardbank.startsWith('The Very Long Name Of A Bank')).toBe(true);
    });

    it('a decline fails the attempt with its code; the retry is a new attempt and pays, one PaymentIntent each', async () => {
      const intent = await s.liveIntent();
      const declined = await s.pay(intent.client_secret, '4000000000009995');
      expect(declined.json).toMatchObject({ status: 'failed', error: { code: 'insufficient_funds' } });
      const paid = await s.pay(intent.client_secret, '4242424242424242');
      expect(paid.json.status).toBe('succeeded');
      expect(intentsForAttempt(s.double, declined.json.transaction_id)).toHaveLength(1);
      expect(intentsForAttempt(s.double, paid.json.transaction_id)).toHaveLength(1);
      expect(await s.record(declined.json.transaction_id)).toMatchObject({
        status: 30,
        decline_code: 'insufficient_funds',
      });
    });

    it('Stripe committed but the answer was lost twice: processing, no second attempt, then the reconciler settles it', async () => {
      s.hooksOff();
      s.double.arm('create', LOST_ANSWER, 2);
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json).toMatchObject({ status: 'processing', success: false });
      const again = await s.pay(intent.client_secret, '4242424242424242');
      expect(again.json.error.code).toBe('payment_in_progress');
      expect((await s.reconcile()).settled).toEqual([]); // not a minute old yet
      s.clock.advance(MINUTE + 1);
      const report = await s.reconcile();
      expect(report.settled.map((tx) => tx.id)).toContain(res.json.transaction_id);
      expect((await s.intentOf(intent.id)).status).toBe('succeeded');
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 20, cardbank: 'Stripe Test Bank' });
      expect(intentsForAttempt(s.double, res.json.transaction_id)).toHaveLength(1);
    });

    it('an unknown Stripe cannot settle is flagged for review once: event, metric, record; the intent stays processing', async () => {
      s.hooksOff();
      s.double.arm('create', { fault: 'rate_limit_429', retryAfter: 1 }, 1);
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('processing');
      s.clock.advance(MINUTE + 1);
      expect((await s.reconcile()).flaggedForReview).toEqual([]);
      s.clock.advance(60 * MINUTE);
      const report = await s.reconcile();
      expect(report.flaggedForReview.map((tx) => tx.id)).toEqual([res.json.transaction_id]);
      expect((await s.reconcile()).flaggedForReview).toEqual([]); // once
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 10, requires_review: true });
      expect((await s.intentOf(intent.id)).status).toBe('processing');
      const events = await s.t.call('GET', '/api/v1/events?type=payment_attempt.requires_review', {
        key: s.shop.secretKey,
      });
      expect(events.json.data.map((e: { data: { object: { id: string } } }) => e.data.object.id)).toContain(
        res.json.transaction_id,
      );
      // The metrics listener, not the public port (decision 0074).
      const metrics = { text: await (await fetch(s.t.server.metricsUrl as string)).text() };
      expect(metrics.text).toMatch(/^obolus_payment_attempts_requires_review [1-9]\d*$/m);
    });

    it('an unknown attempt holds off the 7-day expiry until it is settled', async () => {
      s.hooksOff();
      s.double.arm('create', { fault: 'drop_after_commit' }, 2);
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('processing');
      s.clock.advance(8 * DAY);
      await expireDueIntents(paymentDeps(s.t.server.services));
      expect((await s.intentOf(intent.id)).status).toBe('processing');
      await s.reconcile();
      expect((await s.intentOf(intent.id)).status).toBe('succeeded');
      s.clock.set(Date.now());
    });

    it('a late webhook after the reconciler settled the attempt changes nothing', async () => {
      // Late by order, not by a timer: the event goes nowhere until the reconciler has settled
      // the attempt, then Stripe's retry delivers it.
      s.hooksOff();
      s.double.arm('create', DROPPED_ANSWER, 2);
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('processing');
      s.clock.advance(MINUTE + 1);
      expect((await s.reconcile()).settled.map((tx) => tx.id)).toContain(res.json.transaction_id);
      s.hooksOn();
      const event = s.double.webhooks.events.find((e) => e.type === 'payment_intent.succeeded');
      expect(s.double.webhooks.resend(String(event?.id))).toBe(true);
      await s.double.webhooks.settled();
      expect(s.double.webhooks.sent.map((w) => [w.type, w.status])).toEqual([['payment_intent.succeeded', 200]]);
      const events = await s.t.call('GET', '/api/v1/events?type=payment_intent.succeeded', { key: s.shop.secretKey });
      const forIntent = events.json.data.filter(
        (e: { data: { object: { id: string } } }) => e.data.object.id === intent.id,
      );
      expect(forIntent).toHaveLength(1);
      s.clock.set(Date.now());
    });
  },
  // Two lost answers wait out the connector's deadline twice (2 x 3 s).
  30_000,
);
