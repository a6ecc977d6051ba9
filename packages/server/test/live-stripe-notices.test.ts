import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { DAY } from '../src/clock.ts';
import { expireDueIntents } from '../src/domain/payments/expire.ts';
import { RECONCILE_AFTER_MS } from '../src/domain/payments/reconcile.ts';
import { paymentDeps } from '../src/services.ts';
import { startReconciler } from '../src/workers/reconciler.ts';
import { ENGINES } from './support/engines.ts';
import { DROPPED_ANSWER, eventually, type LiveStripe, LOST_ANSWER, useLiveStripe } from './support/live-stripe.ts';
import { intentsForAttempt } from './support/stripe-double.ts';

/** Stripe's webhooks at /hooks/stripe, and refunds, both ways; faults of the double's webhook sender. */
describe.each(ENGINES)(
  'Stripe notices and refunds (%s)',
  (engine) => {
    const suite = useLiveStripe(engine);
    let s: LiveStripe;
    beforeEach(() => {
      s = suite();
    });

    const statusesOf = (type: string) => s.double.webhooks.sent.filter((w) => w.type === type).map((w) => w.status);
    // The answer lost on the wire (the connector's deadline is the point of the first test only).
    const lostAnswer = () => s.double.arm('create', DROPPED_ANSWER, 2);

    it('payment_intent.succeeded settles an attempt whose answer was lost, before any reconciliation', async () => {
      // Held until the connector has given up, twice: the notice lands while it waits.
      s.double.arm('create', LOST_ANSWER, 2);
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('processing');
      await eventually(async () => expect((await s.intentOf(intent.id)).status).toBe('succeeded'));
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 20, processor: 'stripe' });
    });

    it.each(['bad_signature', 'stale', 'future'] as const)(
      'a %s webhook gets 400 and changes nothing; the genuine one then applies',
      async (fault) => {
        s.double.webhooks.arm({ fault });
        lostAnswer();
        const intent = await s.liveIntent();
        const res = await s.pay(intent.client_secret, '4242424242424242');
        await eventually(async () => expect(statusesOf('payment_intent.succeeded')).toEqual([400]));
        expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 10 });
        const event = s.double.webhooks.events.find((e) => e.type === 'payment_intent.succeeded');
        s.double.webhooks.resend(String(event?.id));
        await eventually(async () => expect((await s.intentOf(intent.id)).status).toBe('succeeded'));
      },
    );

    it('a payment whose payment_intent.succeeded lands before Stripe answers the call is answered succeeded', async () => {
      // Held until the event has been delivered and answered, then answered at once.
      s.double.arm('create', { ...LOST_ANSWER, untilWebhooksSent: true }, 1);
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(statusesOf('payment_intent.succeeded')).toEqual([200]);
      expect(res.json.status).toBe('succeeded');
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 20, processor: 'stripe' });
    });

    it('a duplicated event is applied once and acknowledged twice', async () => {
      s.double.webhooks.arm({ fault: 'duplicate' });
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('succeeded');
      await eventually(async () => expect(statusesOf('payment_intent.succeeded')).toEqual([200, 200]));
      expect(s.t.logs()).toMatch(/"result":"duplicate"/);
    });

    it('charge.dispute.created sets chargeback (status 50) and tells the merchant', async () => {
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4000000000000259');
      await eventually(async () =>
        expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 50, chargeback: true }),
      );
      const events = await s.t.call('GET', '/api/v1/events?type=transaction.updated', { key: s.shop.secretKey });
      const disputed = events.json.data.filter(
        (e: { data: { object: { id: string; chargeback: boolean } } }) =>
          e.data.object.id === res.json.transaction_id && e.data.object.chargeback,
      );
      expect(disputed).toHaveLength(1);
    });

    it('charge.dispute.closed as won gives the money back to the merchant: status 20, chargeback false', async () => {
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4000000000000259');
      await eventually(async () => expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 50 }));
      const dispute = s.double.webhooks.events.find((e) => e.type === 'charge.dispute.created');
      const disputed = dispute?.data as { object: { id: string } } | undefined;
      s.double.payments.closeDispute(String(disputed?.object.id), 'won');
      await eventually(async () => expect(statusesOf('charge.dispute.closed')).toEqual([200]));
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 20, chargeback: false });
    });

    it('item 9: a PaymentIntent that now shows another amount settles nothing: raised for review, a warning logged', async () => {
      lostAnswer();
      s.hooksOff();
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('processing');
      const [payment] = intentsForAttempt(s.double, res.json.transaction_id);
      if (!payment) throw new Error('no PaymentIntent at the double');
      payment.pi.amount = 9999;
      s.hooksOn();
      const event = s.double.webhooks.events.find((e) => e.type === 'payment_intent.succeeded');
      s.double.webhooks.resend(String(event?.id));
      await eventually(async () => expect(statusesOf('payment_intent.succeeded')).toEqual([200]));
      expect(await s.record(res.json.transaction_id)).toMatchObject({
        status: 10,
        requires_review: true,
        review_reason: 'amount_mismatch',
      });
      expect((await s.intentOf(intent.id)).status).toBe('processing');
      expect(s.t.logs()).toContain('acquirer notice does not match its attempt');
    });

    it('out of order: a dispute before the approval we never heard of settles the payment, then records the chargeback', async () => {
      s.double.webhooks.arm({ fault: 'out_of_order', count: 2 });
      lostAnswer();
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4000000000000259');
      expect(res.json.status).toBe('processing');
      await eventually(async () => expect(statusesOf('charge.dispute.created')).toEqual([200]));
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 50, chargeback: true });
      expect((await s.intentOf(intent.id)).status).toBe('succeeded');
      // The approval, arriving after, changes nothing: forward only.
      await eventually(async () => expect(statusesOf('payment_intent.succeeded')).toEqual([200]));
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 50 });
    });

    it('a dispute of a payment Stripe does not know as ours waits (503) for a retry, and changes nothing', async () => {
      // A dispute of a PaymentIntent that is not ours, in Stripe's shape.
      s.double.webhooks.emit('charge.dispute.created', {
        id: 'dp_x',
        object: 'dispute',
        amount: 2000,
        balance_transactions: [],
        charge: 'ch_unknown',
        created: Math.floor(Date.now() / 1000),
        currency: 'usd',
        evidence: {},
        evidence_details: { due_by: null, has_evidence: false, past_due: false, submission_count: 0 },
        is_charge_refundable: false,
        livemode: true,
        metadata: {},
        payment_intent: 'pi_unknown',
        reason: 'fraudulent',
        status: 'needs_response',
      });
      await eventually(async () => expect(statusesOf('charge.dispute.created')).toEqual([503]));
    });

    it('an event type Obolus does not use is acknowledged and ignored', async () => {
      s.double.webhooks.emit('customer.created', { id: 'cus_1', object: 'customer' });
      await eventually(async () => expect(statusesOf('customer.created')).toEqual([200]));
    });

    it('a late approval of an attempt the shopper was told failed is refunded at Stripe and recorded', async () => {
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4000000000003220');
      expect(res.json.status).toBe('requires_action');
      const [payment] = intentsForAttempt(s.double, res.json.transaction_id);
      // The shopper walks away; the attempt is ended as failed (expiry), then authenticates after all.
      s.clock.advance(8 * DAY);
      await expireDueIntents(paymentDeps(s.t.server.services));
      expect(await s.record(res.json.transaction_id)).toMatchObject({
        status: 30,
        decline_code: 'authentication_failed',
      });
      s.double.payments.completeThreeDS(String(payment?.pi.id), true);
      await eventually(async () =>
        expect((await s.record(res.json.transaction_id)).late_approval_reversal).toMatch(/^refunded re_/),
      );
      expect(s.double.refunds.all()).toMatchObject([
        { payment_intent: payment?.pi.id, amount: 2000, status: 'succeeded' },
      ]);
      expect((await s.record(res.json.transaction_id)).status).toBe(30);
      s.clock.set(Date.now());
    });

    it('refunds go to Stripe with our refund id as idempotency key; a refund Stripe later fails gives the amount back', async () => {
      const intent = await s.liveIntent({ amount: 5000 });
      const paid = await s.pay(intent.client_secret, '4242424242424242');
      const refund = await s.t.call('POST', `/api/v1/transactions/${paid.json.transaction_id}/refunds`, {
        key: s.shop.secretKey,
        body: { amount: 1200 },
      });
      expect(refund.json).toMatchObject({ status: 'succeeded', processor_refund_id: expect.stringMatching(/^re_/) });
      expect(refund.json.transaction_record).toMatchObject({ status: 41, amount_refunded: 1200 });
      const sent = s.double.requests.find((r) => r.path === '/v1/refunds');
      expect(sent).toMatchObject({ idempotencyKey: refund.json.id, form: { amount: '1200' } });
      s.double.refunds.setStatus(refund.json.processor_refund_id, 'failed');
      await eventually(async () =>
        expect(await s.record(paid.json.transaction_id)).toMatchObject({
          status: 20,
          amount_refunded: 0,
          refunds: [{ id: refund.json.id, status: 'failed' }],
        }),
      );
      const more = await s.t.call('POST', `/api/v1/transactions/${paid.json.transaction_id}/refunds`, {
        key: s.shop.secretKey,
        body: { amount: 5001 },
      });
      expect(more.status).toBe(400);
      const all = await s.t.call('POST', `/api/v1/transactions/${paid.json.transaction_id}/refunds`, {
        key: s.shop.secretKey,
        body: {},
      });
      expect(all.json).toMatchObject({ status: 'succeeded', amount: 5000, transaction_record: { status: 40 } });
    });

    /** Refunds 1000 of a fresh 3000 payment while `fault` is armed; the refund comes back unanswered. */
    const unansweredRefund = async (fault: () => void) => {
      const intent = await s.liveIntent({ amount: 3000 });
      const paid = await s.pay(intent.client_secret, '4242424242424242');
      fault();
      const refund = await s.t.call('POST', `/api/v1/transactions/${paid.json.transaction_id}/refunds`, {
        key: s.shop.secretKey,
        body: { amount: 1000 },
      });
      expect(refund.json).toMatchObject({ status: 'pending', processor_refund_id: null });
      return { transactionId: paid.json.transaction_id as string, refundId: refund.json.id as string };
    };

    /** Two passes of the reconciler the server runs: one while the refund is young, one a minute later. */
    const reconcileTwice = async (whileYoung: () => void): Promise<string> => {
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
      const reconciler = startReconciler(s.t.server.services, logger, DAY);
      try {
        await reconciler.runOnce();
        whileYoung();
        s.clock.advance(RECONCILE_AFTER_MS + 1);
        await reconciler.runOnce();
      } finally {
        await reconciler.stop();
        s.clock.set(Date.now());
      }
      return lines.join('');
    };

    const refundCalls = () => s.double.requests.filter((r) => r.path === '/v1/refunds');
    /** Stripe's refunds made for our refund `id` (the double keeps those of earlier tests too). */
    const madeAtStripe = (id: string) =>
      s.double.refunds.all().filter((r) => (r.metadata as { obolus_refund?: string }).obolus_refund === id);

    it('a refund Stripe refused before making it (500 twice) is sent again by the reconciler, under its own id', async () => {
      const { transactionId, refundId } = await unansweredRefund(() =>
        s.double.arm('refund', { fault: 'error_500_before' }, 2),
      );
      // Young, it may still be waiting on Stripe in the request that made it: left alone.
      const log = await reconcileTwice(() => expect(refundCalls()).toHaveLength(2));
      expect(log).toContain(`"count":1,"refunds":["${refundId}"],"msg":"unanswered refunds sent again and answered"`);
      expect(refundCalls().map((r) => r.idempotencyKey)).toEqual([refundId, refundId, refundId]);
      expect(madeAtStripe(refundId)).toMatchObject([{ amount: 1000 }]);
      expect(await s.record(transactionId)).toMatchObject({
        status: 41,
        amount_refunded: 1000,
        refunds: [{ id: refundId, status: 'succeeded', processor_refund_id: expect.stringMatching(/^re_/) }],
      });
    });

    it('a refund Stripe made but whose answer and notice were lost is answered by the resend, not made twice', async () => {
      s.hooksOff();
      const { transactionId, refundId } = await unansweredRefund(() => s.double.arm('refund', LOST_ANSWER, 2));
      expect(madeAtStripe(refundId)).toHaveLength(1);
      await reconcileTwice(() => undefined);
      expect(madeAtStripe(refundId)).toHaveLength(1);
      expect(refundCalls().at(-1)).toMatchObject({ idempotencyKey: refundId });
      expect(await s.record(transactionId)).toMatchObject({
        amount_refunded: 1000,
        refunds: [{ id: refundId, status: 'succeeded', processor_refund_id: madeAtStripe(refundId)[0]?.id }],
      });
    });

    it('a refund whose refund.created notice lands before Stripe answers the call is answered succeeded, settled once', async () => {
      const intent = await s.liveIntent({ amount: 3000 });
      const paid = await s.pay(intent.client_secret, '4242424242424242');
      // Stripe has made the refund and sent its event; its answer to our call is slower than the event.
      // Held until the event has been delivered and answered, then answered at once.
      s.double.arm('refund', { ...LOST_ANSWER, untilWebhooksSent: true }, 1);
      const refund = await s.t.call('POST', `/api/v1/transactions/${paid.json.transaction_id}/refunds`, {
        key: s.shop.secretKey,
        body: { amount: 1000 },
      });
      expect(statusesOf('refund.created')).toEqual([200]);
      expect(refund.json).toMatchObject({
        status: 'succeeded',
        processor_refund_id: expect.stringMatching(/^re_/),
        transaction_record: {
          status: 41,
          amount_refunded: 1000,
          refunds: [{ id: refund.json.id, status: 'succeeded' }],
        },
      });
      const events = await s.t.call('GET', '/api/v1/events?type=transaction.updated', { key: s.shop.secretKey });
      const settled = events.json.data.filter(
        (e: { data: { object: { id: string; refunds: Array<{ status: string }> } } }) =>
          e.data.object.id === paid.json.transaction_id && e.data.object.refunds[0]?.status === 'succeeded',
      );
      expect(settled).toHaveLength(1);
    });
  },
  // A lost answer waits out the connector's deadline twice (2 x 3 s).
  30_000,
);
