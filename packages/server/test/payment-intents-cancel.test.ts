import { describe, expect, it } from 'vitest';
import { DAY, ManualClock } from '../src/clock.ts';
import { expireDueIntents } from '../src/domain/payments/expire.ts';
import { paymentDeps } from '../src/services.ts';
import { ENGINES } from './support/engines.ts';
import { startTestServer } from './support/server.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

describe.each(ENGINES)('canceling a payment intent (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });

  const cancel = (id: string, body?: unknown, key = shop.secretKey, headers?: Record<string, string>) =>
    t.call('POST', `/api/v1/payment-intents/${id}/cancel`, {
      key,
      ...(body === undefined ? {} : { body }),
      ...(headers ? { headers } : {}),
    });
  const retrieve = async (id: string) =>
    (await t.call('GET', `/api/v1/payment-intents/${id}`, { key: shop.secretKey })).json;
  const pay = (secret: string, number: string) => confirm(t, shop.clientKey, secret, card(number));

  it('cancels a requires_payment intent with a reason: canceled_at, the reason and one payment_intent.canceled event', async () => {
    const intent = await createIntent(t, shop.secretKey);
    const res = await cancel(intent.id, { cancellation_reason: 'requested_by_customer' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: intent.id,
      status: 'canceled',
      cancellation_reason: 'requested_by_customer',
      canceled_at: Math.floor(clock.now() / 1000),
    });
    expect(await retrieve(intent.id)).toEqual(res.json);
    const events = await t.call('GET', `/api/v1/events?type=payment_intent.canceled&object_id=${intent.id}`, {
      key: shop.secretKey,
    });
    expect(events.json.data).toHaveLength(1);
    expect(events.json.data[0].data.object).toEqual(res.json);
  });

  it('a cancel without a body has no reason; every listed reason is taken', async () => {
    const bare = await createIntent(t, shop.secretKey);
    expect((await cancel(bare.id)).json).toMatchObject({ status: 'canceled', cancellation_reason: null });
    for (const reason of ['duplicate', 'fraudulent', 'abandoned']) {
      const intent = await createIntent(t, shop.secretKey);
      expect((await cancel(intent.id, { cancellation_reason: reason })).json.cancellation_reason).toBe(reason);
    }
  });

  it('cancels a failed intent (its last attempt declined)', async () => {
    const intent = await createIntent(t, shop.secretKey);
    expect((await pay(intent.client_secret, '4000000000000002')).json.success).toBe(false);
    expect((await retrieve(intent.id)).status).toBe('failed');
    expect((await cancel(intent.id, { cancellation_reason: 'abandoned' })).json.status).toBe('canceled');
  });

  it('refuses an unknown reason, `automatic` (ours only) and unknown fields, naming the field', async () => {
    const intent = await createIntent(t, shop.secretKey);
    for (const [body, param] of [
      [{ cancellation_reason: 'bored' }, 'cancellation_reason'],
      [{ cancellation_reason: 'automatic' }, 'cancellation_reason'],
      [{ cancellation_reason: 7 }, 'cancellation_reason'],
      [{ amount: 5 }, 'amount'],
    ] as const) {
      const res = await cancel(intent.id, body);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ type: 'invalid_request', param });
    }
    expect((await retrieve(intent.id)).status).toBe('requires_payment');
  });

  it.each([
    ['succeeded', '4242424242424242'],
    ['processing', '4000000000003220'],
  ])(
    'refuses to cancel a %s intent: 400 intent_unexpected_state, nothing changed, no event',
    async (status, number) => {
      const intent = await createIntent(t, shop.secretKey);
      await pay(intent.client_secret, number);
      const before = await retrieve(intent.id);
      expect(before.status).toBe(status);
      const res = await cancel(intent.id, { cancellation_reason: 'duplicate' });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'intent_unexpected_state' });
      expect(res.json.error.message).toContain(status);
      expect(await retrieve(intent.id)).toEqual(before);
      const events = await t.call('GET', `/api/v1/events?type=payment_intent.canceled&object_id=${intent.id}`, {
        key: shop.secretKey,
      });
      expect(events.json.data).toEqual([]);
    },
  );

  it('refuses to cancel an expired intent, before and after the sweeper wrote it', async () => {
    const local = await startTestServer(engine, { clock: new ManualClock(Date.UTC(2026, 10, 1)) });
    try {
      const account = await local.newAccount();
      const intent = await createIntent(local, account.secretKey);
      (local.server.services.clock as ManualClock).advance(7 * DAY);
      const res = await local.call('POST', `/api/v1/payment-intents/${intent.id}/cancel`, { key: account.secretKey });
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'intent_unexpected_state' });
      expect(res.json.error.message).toContain('expired');
      expect(await expireDueIntents(paymentDeps(local.server.services))).toHaveLength(1);
      const swept = await local.call('POST', `/api/v1/payment-intents/${intent.id}/cancel`, { key: account.secretKey });
      expect(swept.json.error).toMatchObject({ code: 'intent_unexpected_state' });
    } finally {
      await local.close();
    }
  });

  it('a canceled intent cannot be canceled again, nor paid: its client_secret pays nothing', async () => {
    const intent = await createIntent(t, shop.secretKey);
    await cancel(intent.id);
    const again = await cancel(intent.id);
    expect(again.status).toBe(400);
    expect(again.json.error.code).toBe('intent_unexpected_state');
    const paid = await pay(intent.client_secret, '4242424242424242');
    expect(paid.status).toBe(400);
    expect(paid.json.error.code).toBe('payment_intent_canceled');
    const shown = await t.call('POST', '/embed/v1/intent', {
      body: { pk: shop.clientKey, client_secret: intent.client_secret },
    });
    expect(shown.json.status).toBe('canceled');
    const current = await retrieve(intent.id);
    expect(current).toMatchObject({ status: 'canceled', last_transaction: null });
  });

  it('a cancel and a payment fired at once: exactly one of them happens', async () => {
    for (let round = 0; round < 5; round++) {
      const intent = await createIntent(t, shop.secretKey);
      const [canceled, paid] = await Promise.all([cancel(intent.id), pay(intent.client_secret, '4242424242424242')]);
      const final = await retrieve(intent.id);
      if (canceled.status === 200) {
        expect(paid.status).toBe(400);
        expect(final).toMatchObject({ status: 'canceled', last_transaction: null });
      } else {
        expect(canceled.json.error.code).toBe('intent_unexpected_state');
        expect(paid.status).toBe(200);
        expect(final.status).toBe('succeeded');
      }
    }
  });

  it('replays a cancel under the same Idempotency-Key byte for byte', async () => {
    const intent = await createIntent(t, shop.secretKey);
    const headers = { 'idempotency-key': `cancel-${intent.id}` };
    const first = await cancel(intent.id, { cancellation_reason: 'duplicate' }, shop.secretKey, headers);
    const second = await cancel(intent.id, { cancellation_reason: 'duplicate' }, shop.secretKey, headers);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it("another account's intent is the same 404 as a missing one; no key is a 401", async () => {
    const other = await t.newAccount();
    const foreign = await createIntent(t, other.secretKey);
    const a = await cancel(foreign.id);
    const b = await cancel('0'.repeat(24));
    expect(a.status).toBe(404);
    expect(b.status).toBe(404);
    expect(a.json.error.code).toBe('resource_missing');
    expect(a.json.error.message.replace(foreign.id, 'ID')).toBe(b.json.error.message.replace('0'.repeat(24), 'ID'));
    expect((await retrieve(foreign.id)).status).toBeUndefined();
    expect((await cancel(foreign.id, undefined, '')).status).toBe(401);
    const still = await t.call('GET', `/api/v1/payment-intents/${foreign.id}`, { key: other.secretKey });
    expect(still.json.status).toBe('requires_payment');
  });
});
