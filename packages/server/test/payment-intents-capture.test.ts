import { describe, expect, it } from 'vitest';
import { DAY, HOUR, ManualClock } from '../src/clock.ts';
import { createLogger } from '../src/logger.ts';
import { startExpirySweeper } from '../src/workers/expiry-sweeper.ts';
import { ENGINES } from './support/engines.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

describe.each(ENGINES)('authorize now, capture later (sandbox, %s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const { t, shop } = useTestServer(engine, { clock, config: { captureWindowMs: 2 * DAY }, withAccount: true });

  const call = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { key: shop.secretKey, ...(body === undefined ? {} : { body }) });
  const retrieve = async (id: string) => (await call('GET', `/api/v1/payment-intents/${id}`)).json;
  const transaction = async (id: string) => (await call('GET', `/api/v1/transactions/${id}`)).json;
  const eventTypes = async (id: string) =>
    ((await call('GET', `/api/v1/events?object_id=${id}&limit=100`)).json.data as { type: string; sequence: number }[])
      .sort((a, b) => a.sequence - b.sequence)
      .map((e) => e.type);
  /** A manual intent paid by the shopper: authorized only. */
  const authorized = async (amount = 5000) => {
    const intent = await createIntent(t, shop.secretKey, { amount, capture_method: 'manual' });
    const paid = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    return { intent, paid: paid.json };
  };

  it('capture_method defaults to automatic and is echoed; an unknown value names the field', async () => {
    const plain = await createIntent(t, shop.secretKey);
    expect((await retrieve(plain.id)).capture_method).toBe('automatic');
    const manual = await createIntent(t, shop.secretKey, { capture_method: 'manual' });
    expect(manual).toMatchObject({ capture_method: 'manual', capture_before: null });
    const bad = await call('POST', '/api/v1/payment-intents', {
      amount: 100,
      currency: 'USD',
      mode: 'sandbox',
      capture_method: 'later',
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('capture_method');
  });

  it('an approval leaves the intent requires_capture (the shopper is told success), the transaction authorized, not settled', async () => {
    const { intent, paid } = await authorized(5000);
    expect(paid).toMatchObject({ success: true, status: 'requires_capture', payment_intent: intent.id });
    const now = await retrieve(intent.id);
    expect(now).toMatchObject({
      status: 'requires_capture',
      capture_method: 'manual',
      capture_before: Math.floor((clock.now() + 2 * DAY) / 1000),
    });
    expect(await transaction(paid.transaction_id)).toMatchObject({
      status: 11,
      statustext: 'Authorized',
      amount: 5000,
      amountpaid: 0,
      usdpaid: 0,
    });
    expect(await eventTypes(intent.id)).toEqual([
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.amount_capturable_updated',
    ]);
    // Nothing captured: nothing to refund, and the client_secret pays no more.
    const refund = await call('POST', `/api/v1/transactions/${paid.transaction_id}/refunds`, {});
    expect(refund.status).toBe(409);
    const again = await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
    expect(again.json.error.code).toBe('payment_intent_unexpected_state');
  });

  it('a capture without an amount takes it all: succeeded, transaction 20 Settled for the whole amount', async () => {
    const { intent, paid } = await authorized(5000);
    const res = await call('POST', `/api/v1/payment-intents/${intent.id}/capture`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'succeeded', capture_before: null });
    expect(await transaction(paid.transaction_id)).toMatchObject({ status: 20, amountpaid: 50, amount: 5000 });
    expect((await eventTypes(intent.id)).at(-1)).toBe('payment_intent.succeeded');
  });

  it('a partial capture settles what was captured (its fee too) and releases the rest; refunds reach the captured money only', async () => {
    const { intent, paid } = await authorized(5000);
    const res = await call('POST', `/api/v1/payment-intents/${intent.id}/capture`, { amount_to_capture: 3000 });
    expect(res.json.status).toBe('succeeded');
    const tx = await transaction(paid.transaction_id);
    expect(tx).toMatchObject({ status: 20, amount: 3000, amountpaid: 30, usdpaid: 30, usdfee: 1.17 });
    const tooMuch = await call('POST', `/api/v1/transactions/${paid.transaction_id}/refunds`, { amount: 3001 });
    expect(tooMuch.status).toBe(400);
    const all = await call('POST', `/api/v1/transactions/${paid.transaction_id}/refunds`, { amount: 3000 });
    expect(all.status).toBe(200);
  });

  it('takes amount_to_capture at its edges: 1 and the whole authorization; one more is capture_amount_too_large', async () => {
    const low = await authorized(5000);
    expect(
      (await call('POST', `/api/v1/payment-intents/${low.intent.id}/capture`, { amount_to_capture: 1 })).status,
    ).toBe(200);
    expect((await transaction(low.paid.transaction_id)).amount).toBe(1);
    const high = await authorized(5000);
    const over = await call('POST', `/api/v1/payment-intents/${high.intent.id}/capture`, { amount_to_capture: 5001 });
    expect(over.status).toBe(400);
    expect(over.json.error).toMatchObject({ code: 'capture_amount_too_large', param: 'amount_to_capture' });
    expect((await retrieve(high.intent.id)).status).toBe('requires_capture');
    for (const bad of [0, -1, 1.5, '100']) {
      const res = await call('POST', `/api/v1/payment-intents/${high.intent.id}/capture`, { amount_to_capture: bad });
      expect(res.status).toBe(400);
      expect(res.json.error.param).toBe('amount_to_capture');
    }
    expect(
      (await call('POST', `/api/v1/payment-intents/${high.intent.id}/capture`, { amount_to_capture: 5000 })).status,
    ).toBe(200);
  });

  it.each([
    [
      'requires_payment (manual, not paid)',
      async () => (await createIntent(t, shop.secretKey, { capture_method: 'manual' })).id,
    ],
    [
      'succeeded (automatic)',
      async () => {
        const intent = await createIntent(t, shop.secretKey);
        await confirm(t, shop.clientKey, intent.client_secret, card('4242424242424242'));
        return intent.id;
      },
    ],
    [
      'succeeded (captured already)',
      async () => {
        const { intent } = await authorized();
        await call('POST', `/api/v1/payment-intents/${intent.id}/capture`);
        return intent.id;
      },
    ],
  ])('refuses a capture of an intent %s: intent_unexpected_state, nothing changed', async (_name, make) => {
    const id = await make();
    const before = await retrieve(id);
    const res = await call('POST', `/api/v1/payment-intents/${id}/capture`);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('intent_unexpected_state');
    expect(await retrieve(id)).toEqual(before);
  });

  it('a cancel of requires_capture voids the authorization: canceled, transaction 32 Voided, nothing paid', async () => {
    const { intent, paid } = await authorized();
    const res = await call('POST', `/api/v1/payment-intents/${intent.id}/cancel`, {
      cancellation_reason: 'fraudulent',
    });
    expect(res.json).toMatchObject({ status: 'canceled', cancellation_reason: 'fraudulent', capture_before: null });
    expect(await transaction(paid.transaction_id)).toMatchObject({ status: 32, statustext: 'Voided', amountpaid: 0 });
    expect((await eventTypes(intent.id)).at(-1)).toBe('payment_intent.canceled');
    const capture = await call('POST', `/api/v1/payment-intents/${intent.id}/capture`);
    expect(capture.json.error.code).toBe('intent_unexpected_state');
  });

  it('a capture and a cancel fired at once: exactly one of them happens', async () => {
    for (let round = 0; round < 4; round++) {
      const { intent, paid } = await authorized();
      const [captured, canceled] = await Promise.all([
        call('POST', `/api/v1/payment-intents/${intent.id}/capture`),
        call('POST', `/api/v1/payment-intents/${intent.id}/cancel`),
      ]);
      expect([captured.status, canceled.status].sort()).toEqual([200, 400]);
      const tx = await transaction(paid.transaction_id);
      expect(tx.status).toBe(captured.status === 200 ? 20 : 32);
    }
  });

  it('an authorization not captured within the window is voided by the sweeper: canceled with reason automatic', async () => {
    const sweeper = startExpirySweeper(t.server.services, createLogger('silent'), 3_600_000);
    try {
      const { intent, paid } = await authorized();
      clock.advance(2 * DAY - HOUR);
      expect((await sweeper.runOnce()).voided).toBe(0);
      expect((await retrieve(intent.id)).status).toBe('requires_capture');
      clock.advance(HOUR);
      // Earlier tests' authorizations, made at the same moment, are due too.
      expect((await sweeper.runOnce()).voided).toBeGreaterThanOrEqual(1);
      expect(await retrieve(intent.id)).toMatchObject({ status: 'canceled', cancellation_reason: 'automatic' });
      expect((await transaction(paid.transaction_id)).status).toBe(32);
      // Past the 7-day window too: neither expired nor voided twice.
      clock.advance(7 * DAY);
      expect(await sweeper.runOnce()).toMatchObject({ voided: 0 });
      expect((await retrieve(intent.id)).status).toBe('canceled');
    } finally {
      await sweeper.stop();
    }
  });

  it("another account's intent is the same 404 as a missing one", async () => {
    const other = await t.newAccount();
    const foreign = await createIntent(t, other.secretKey, { capture_method: 'manual' });
    await confirm(t, other.clientKey, foreign.client_secret, card('4242424242424242'));
    const a = await call('POST', `/api/v1/payment-intents/${foreign.id}/capture`);
    const b = await call('POST', `/api/v1/payment-intents/${'0'.repeat(24)}/capture`);
    expect([a.status, b.status]).toEqual([404, 404]);
    const still = await t.call('GET', `/api/v1/payment-intents/${foreign.id}`, { key: other.secretKey });
    expect(still.json.status).toBe('requires_capture');
  });
});
