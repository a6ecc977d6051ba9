import { beforeEach, describe, expect, it } from 'vitest';
import { DAY } from '../src/clock.ts';
import { createLogger } from '../src/logger.ts';
import { startExpirySweeper } from '../src/workers/expiry-sweeper.ts';
import { paymentsForAttempt } from './support/checkout-double.ts';
import { ENGINES } from './support/engines.ts';
import { type LiveCheckout, type LiveStripe, useLiveCheckout, useLiveStripe } from './support/live-stripe.ts';

/**
 * Authorize now, capture later through each live connector and its double (decision 0241):
 * Stripe capture_method=manual, /capture, /cancel; Checkout.com capture:false, /captures, /voids.
 * Every request and answer is held against the acquirer's definitions (useLive's afterEach).
 */
type Acquirer = {
  name: string;
  use: (engine: (typeof ENGINES)[number]) => () => LiveStripe | LiveCheckout;
  /** The acquirer's own status of a payment and what it captured. */
  held: (s: LiveStripe | LiveCheckout, attemptId: string, paymentRef: string) => { status: string; captured: number };
  statuses: { authorized: string; captured: string; voided: string };
};

const ACQUIRERS: Acquirer[] = [
  {
    name: 'Stripe',
    use: useLiveStripe,
    held: (s, _attemptId, ref) => {
      const pi = (s as LiveStripe).double.payments.get(ref)?.pi ?? {};
      return { status: String(pi.status), captured: Number(pi.amount_received) };
    },
    statuses: { authorized: 'requires_capture', captured: 'succeeded', voided: 'canceled' },
  },
  {
    name: 'Checkout.com',
    use: useLiveCheckout,
    held: (s, attemptId) => {
      const [payment] = paymentsForAttempt((s as LiveCheckout).double, attemptId);
      const stored = payment && (s as LiveCheckout).double.payments.find(String(payment.id));
      return { status: String(payment?.status), captured: stored?.captured ?? 0 };
    },
    statuses: { authorized: 'Authorized', captured: 'Captured', voided: 'Voided' },
  },
];

describe.each(ENGINES)('manual capture through the live connectors (%s)', (engine) => {
  describe.each(ACQUIRERS)('$name', (acquirer) => {
    const suite = acquirer.use(engine);
    let s: LiveStripe | LiveCheckout;
    beforeEach(() => {
      s = suite();
    });
    const post = (path: string, body?: unknown) =>
      s.t.call('POST', path, { key: s.shop.secretKey, ...(body === undefined ? {} : { body }) });
    const authorized = async (amount = 5000) => {
      const intent = await s.liveIntent({ amount, capture_method: 'manual' });
      const paid = await s.pay(intent.client_secret, '4242424242424242');
      expect(paid.json).toMatchObject({ success: true, status: 'requires_capture' });
      const record = await s.record(paid.json.transaction_id);
      return { intent, transactionId: paid.json.transaction_id as string, ref: record.processor_payment_id as string };
    };

    it('an approval is only authorized at the acquirer; a partial capture captures that much there and settles it here', async () => {
      const { intent, transactionId, ref } = await authorized(5000);
      expect(await s.intentOf(intent.id)).toMatchObject({ status: 'requires_capture' });
      expect(await s.record(transactionId)).toMatchObject({ status: 11, amountpaid: 0 });
      expect(acquirer.held(s, transactionId, ref).status).toBe(acquirer.statuses.authorized);
      const captured = await post(`/api/v1/payment-intents/${intent.id}/capture`, { amount_to_capture: 3200 });
      expect(captured.status).toBe(200);
      expect(captured.json.status).toBe('succeeded');
      expect(acquirer.held(s, transactionId, ref)).toEqual({ status: acquirer.statuses.captured, captured: 3200 });
      expect(await s.record(transactionId)).toMatchObject({ status: 20, amount: 3200, amountpaid: 32 });
      // The acquirer's events about the capture change nothing more, and raise no review.
      await s.double.webhooks.settled();
      expect(await s.record(transactionId)).toMatchObject({ status: 20, amount: 3200, requires_review: false });
    });

    it('a capture of the whole authorization', async () => {
      const { intent, transactionId, ref } = await authorized(4100);
      expect((await post(`/api/v1/payment-intents/${intent.id}/capture`)).json.status).toBe('succeeded');
      expect(acquirer.held(s, transactionId, ref)).toEqual({ status: acquirer.statuses.captured, captured: 4100 });
    });

    it('a cancel voids the authorization at the acquirer', async () => {
      const { intent, transactionId, ref } = await authorized();
      const canceled = await post(`/api/v1/payment-intents/${intent.id}/cancel`, { cancellation_reason: 'duplicate' });
      expect(canceled.json).toMatchObject({ status: 'canceled', cancellation_reason: 'duplicate' });
      expect(acquirer.held(s, transactionId, ref).status).toBe(acquirer.statuses.voided);
      expect(await s.record(transactionId)).toMatchObject({ status: 32, amountpaid: 0 });
    });

    it('an authorization not captured in time is voided at the acquirer by the sweeper: canceled, reason automatic', async () => {
      const { intent, transactionId, ref } = await authorized();
      const sweeper = startExpirySweeper(s.t.server.services, createLogger('silent'), 3_600_000);
      try {
        s.clock.advance(7 * DAY);
        expect((await sweeper.runOnce()).voided).toBeGreaterThanOrEqual(1);
      } finally {
        await sweeper.stop();
      }
      expect(await s.intentOf(intent.id)).toMatchObject({ status: 'canceled', cancellation_reason: 'automatic' });
      expect(acquirer.held(s, transactionId, ref).status).toBe(acquirer.statuses.voided);
      expect(await s.record(transactionId)).toMatchObject({ status: 32 });
    });

    it('an acquirer that does not answer the capture: 502 acquirer_unavailable, nothing changed; sent again, it happens once', async () => {
      const { intent, transactionId, ref } = await authorized(5000);
      // Refused before anything is done, the SDK's retry too.
      s.double.arm('capture', { fault: 'error_500_before' }, 2);
      const lost = await post(`/api/v1/payment-intents/${intent.id}/capture`, { amount_to_capture: 1000 });
      expect(lost.status).toBe(502);
      expect(lost.json.error).toMatchObject({ type: 'server', code: 'acquirer_unavailable' });
      expect((await s.intentOf(intent.id)).status).toBe('requires_capture');
      expect(acquirer.held(s, transactionId, ref).status).toBe(acquirer.statuses.authorized);
      const again = await post(`/api/v1/payment-intents/${intent.id}/capture`, { amount_to_capture: 1000 });
      expect(again.json.status).toBe('succeeded');
      expect(acquirer.held(s, transactionId, ref)).toEqual({ status: acquirer.statuses.captured, captured: 1000 });
    });
  });
});
