import { beforeEach, describe, expect, it } from 'vitest';
import { paymentsForAttempt } from './support/checkout-double.ts';
import { ENGINES } from './support/engines.ts';
import { eventually, type LiveCheckout, useLiveCheckout } from './support/live-stripe.ts';

/** Checkout.com's webhooks at /hooks/checkout-com (Cko-Signature), and refunds (202, final by webhook). */
describe.each(ENGINES)(
  'Checkout.com notices and refunds (%s)',
  (engine) => {
    const suite = useLiveCheckout(engine);
    let s: LiveCheckout;
    beforeEach(() => {
      s = suite();
    });

    const statusesOf = (type: string) => s.double.webhooks.sent.filter((w) => w.type === type).map((w) => w.status);
    /** Approved, then a 500 (not kept under the key), and the lookup that would find it fails: unknown. */
    const lostAnswer = () => {
      s.double.arm('create', { fault: 'error_500_after' });
      s.double.arm('search', { fault: 'error_500_before' });
    };
    const paymentOf = (attemptId: string) => String(paymentsForAttempt(s.double, attemptId)[0]?.id);

    it('an approval over the live path: succeeded, with the card details and the Checkout.com payment id', async () => {
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('succeeded');
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 20, processor: 'checkout-com' });
    });

    it('payment_approved settles an attempt whose answer was lost, before any reconciliation', async () => {
      lostAnswer();
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('processing');
      await eventually(async () => expect((await s.intentOf(intent.id)).status).toBe('succeeded'));
      await eventually(async () => expect(statusesOf('payment_approved')).toEqual([200]));
    });

    it('with no webhook, the reconciler settles a lost answer by GET /payments?reference=, forward only', async () => {
      s.hooksOff();
      lostAnswer();
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('processing');
      s.clock.advance(2 * 60_000);
      await s.reconcile();
      expect((await s.intentOf(intent.id)).status).toBe('succeeded');
      expect(s.double.requests.some((r) => r.method === 'GET' && r.path === '/payments')).toBe(true);
      expect(paymentsForAttempt(s.double, res.json.transaction_id)).toHaveLength(1);
      s.clock.set(Date.now());
    });

    it('a forged Cko-Signature gets 400 and changes nothing; the genuine event then applies', async () => {
      // No payment_captured meanwhile: the forged payment_approved is the only event.
      s.double.payments.captureDelayMs = 60_000;
      s.double.webhooks.arm({ fault: 'bad_signature' });
      lostAnswer();
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      await eventually(async () => expect(statusesOf('payment_approved')).toEqual([400]));
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 10 });
      const event = s.double.webhooks.events.find((e) => e.type === 'payment_approved');
      s.double.webhooks.resend(String(event?.id));
      await eventually(async () => expect((await s.intentOf(intent.id)).status).toBe('succeeded'));
    });

    it('a duplicated event is applied once and acknowledged twice', async () => {
      s.double.webhooks.arm({ fault: 'duplicate' });
      lostAnswer();
      const intent = await s.liveIntent();
      await s.pay(intent.client_secret, '4242424242424242');
      await eventually(async () => expect(statusesOf('payment_approved')).toEqual([200, 200]));
      expect(s.t.logs()).toMatch(/"result":"duplicate"/);
    });

    it('out of order: a dispute before the approval we never heard of settles the payment, then the chargeback', async () => {
      s.double.webhooks.arm({ fault: 'out_of_order', count: 2 });
      lostAnswer();
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      expect(res.json.status).toBe('processing');
      s.double.actions.dispute(paymentOf(res.json.transaction_id));
      await eventually(async () => expect(statusesOf('dispute_evidence_required')).toEqual([200]));
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 50, chargeback: true });
      await eventually(async () => expect(statusesOf('payment_approved')).toEqual([200]));
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 50 });
    });

    it('a refund is sent with our refund id as reference and idempotency key, pending until payment_refunded', async () => {
      s.double.webhooks.endpoint = null;
      const intent = await s.liveIntent({ amount: 5000 });
      const paid = await s.pay(intent.client_secret, '4242424242424242');
      const refund = await s.t.call('POST', `/api/v1/transactions/${paid.json.transaction_id}/refunds`, {
        key: s.shop.secretKey,
        body: { amount: 1200 },
      });
      expect(refund.json).toMatchObject({ status: 'pending', processor_refund_id: expect.stringMatching(/^act_/) });
      const sent = s.double.requests.find((r) => r.path.endsWith('/refunds'));
      expect(sent).toMatchObject({ idempotencyKey: refund.json.id, body: { amount: 1200, reference: refund.json.id } });
      s.hooksOn();
      const event = s.double.webhooks.events.find((e) => e.type === 'payment_refunded');
      s.double.webhooks.resend(String(event?.id));
      await eventually(async () =>
        expect(await s.record(paid.json.transaction_id)).toMatchObject({
          amount_refunded: 1200,
          refunds: [{ id: refund.json.id, status: 'succeeded' }],
        }),
      );
    });

    it.each([
      ['won', 20, false],
      ['canceled', 20, false],
      ['lost', 50, true],
    ] as const)('a dispute, then dispute_%s: status %i, chargeback %s', async (outcome, status, chargeback) => {
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4242424242424242');
      const dispute = s.double.actions.dispute(paymentOf(res.json.transaction_id));
      await eventually(async () => expect(await s.record(res.json.transaction_id)).toMatchObject({ status: 50 }));
      s.double.actions.closeDispute(String(dispute?.id), outcome);
      await eventually(async () => expect(statusesOf(`dispute_${outcome}`)).toEqual([200]));
      expect(await s.record(res.json.transaction_id)).toMatchObject({ status, chargeback });
    });
  },
  20_000,
);
