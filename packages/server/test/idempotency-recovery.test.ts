import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { IDEMPOTENCY_LOCK_MS } from '../src/domain/idempotency.ts';
import { ENGINES } from './support/engines.ts';
import { type LiveStripe, useLiveStripe } from './support/live-stripe.ts';
import type { TestAccount } from './support/server.ts';
import { createSettledTransaction } from './support/transactions.ts';
import { useTestServer } from './support/use-test-server.ts';

/**
 * Regression (decision 0170, found by the crash points): a process that committed an intent or
 * a refund and died before storing its Idempotency-Key response left the key `in_flight`; the
 * retry that took the key over after the lock time made a second intent, or refunded twice.
 */
describe.each(ENGINES)('a key taken over from a request that died after its commit (%s)', (engine) => {
  let shop: TestAccount;
  const clock = new ManualClock(Date.now());
  const { t } = useTestServer(engine, { clock });

  /** What a SIGKILL between the write's commit and the stored response leaves: the key still held. */
  const dieBeforeResponseStored = (key: string) =>
    t.server.services.database.db
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', status_code: null, response_body: null })
      .where('account_id', '=', shop.id)
      .where('key', '=', key)
      .execute();

  it('answers the intent the dead request made instead of making a second one', async () => {
    shop = await t.newAccount();
    const create = () =>
      t.call('POST', '/api/v1/payment-intents', {
        key: shop.secretKey,
        body: { amount: 1500, currency: 'USD', mode: 'sandbox', reference: 'order-7' },
        headers: { 'idempotency-key': 'create-order-7' },
      });
    const first = await create();
    expect(first.status).toBe(200);
    await dieBeforeResponseStored('create-order-7');
    expect((await create()).status).toBe(409); // still held: its holder may be alive
    clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const retry = await create();
    expect(retry.status).toBe(200);
    expect(retry.json).toMatchObject({ id: first.json.id, client_secret: first.json.client_secret });
    const list = await t.call('GET', '/api/v1/payment-intents?limit=100', { key: shop.secretKey });
    expect(list.json.data.map((i: { id: string }) => i.id)).toEqual([first.json.id]);
    // Stored this time: the next retry is an ordinary replay.
    const replay = await create();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.id).toBe(first.json.id);
  });

  it('answers the refund the dead request made instead of refunding twice', async () => {
    shop = await t.newAccount();
    const { id } = await createSettledTransaction(t, shop, { amount: 2000 });
    const refund = () =>
      t.call('POST', `/api/v1/transactions/${id}/refunds`, {
        key: shop.secretKey,
        body: { amount: 500 },
        headers: { 'idempotency-key': 'refund-order-8' },
      });
    const first = await refund();
    expect(first.status).toBe(200);
    await dieBeforeResponseStored('refund-order-8');
    clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const retry = await refund();
    expect(retry.status).toBe(200);
    expect(retry.json.id).toBe(first.json.id);
    const record = await t.call('GET', `/api/v1/transactions/${id}`, { key: shop.secretKey });
    expect(record.json).toMatchObject({ amount_refunded: 500 });
    expect(record.json.refunds.map((r: { id: string }) => r.id)).toEqual([first.json.id]);
  });

  it('a different key still makes a new refund', async () => {
    shop = await t.newAccount();
    const { id } = await createSettledTransaction(t, shop, { amount: 2000 });
    for (const key of ['a', 'b']) {
      const res = await t.call('POST', `/api/v1/transactions/${id}/refunds`, {
        key: shop.secretKey,
        body: { amount: 500 },
        headers: { 'idempotency-key': key },
      });
      expect(res.status).toBe(200);
    }
    const record = await t.call('GET', `/api/v1/transactions/${id}`, { key: shop.secretKey });
    expect(record.json.amount_refunded).toBe(1000);
  });
});

describe.each(ENGINES)('a live refund made by a request that died before Stripe answered (%s)', (engine) => {
  const suite = useLiveStripe(engine);
  let s: LiveStripe;
  beforeEach(() => {
    s = suite();
  });

  it('is sent under its own id when the key is taken over, and refunded once', async () => {
    const intent = await s.liveIntent({ amount: 3000 });
    const paid = await s.pay(intent.client_secret, '4242424242424242');
    expect(paid.json.status).toBe('succeeded');
    const refund = () =>
      s.t.call('POST', `/api/v1/transactions/${paid.json.transaction_id}/refunds`, {
        key: s.shop.secretKey,
        body: { amount: 1000 },
        headers: { 'idempotency-key': 'live-refund-1' },
      });
    // Stripe never got it (both tries refused before processing): the refund stays pending, unsent.
    s.double.arm('refund', { fault: 'error_500_before' }, 2);
    const first = await refund();
    expect(first.json).toMatchObject({ status: 'pending', processor_refund_id: null });
    await s.t.server.services.database.db
      .updateTable('idempotency_keys')
      .set({ state: 'in_flight', status_code: null, response_body: null })
      .where('account_id', '=', s.shop.id)
      .where('key', '=', 'live-refund-1')
      .execute();
    s.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const retry = await refund();
    expect(retry.json).toMatchObject({ id: first.json.id, status: 'succeeded' });
    expect(s.double.refunds.all()).toHaveLength(1);
    expect((await s.record(paid.json.transaction_id)).amount_refunded).toBe(1000);
  });
});
