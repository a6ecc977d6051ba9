import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { ENGINES } from './support/engines.ts';
import { eventually, type LiveStripe, useLiveStripe } from './support/live-stripe.ts';
import { useTestServer } from './support/use-test-server.ts';
import { card, confirm, createIntent } from './support/widget-client.ts';

describe.each(ENGINES)('refunds as objects, disputes as events (%s)', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const { t, shop } = useTestServer(engine, { clock, withAccount: true });

  const get = async (path: string, key = shop.secretKey) => t.call('GET', path, { key });
  const paid = async (account = shop, amount = 5000) => {
    const intent = await createIntent(t, account.secretKey, { amount });
    const res = await confirm(t, account.clientKey, intent.client_secret, card('4242424242424242'));
    return { intentId: intent.id, transactionId: res.json.transaction_id as string };
  };
  const refund = (transactionId: string, body: unknown, key = shop.secretKey) =>
    t.call('POST', `/api/v1/transactions/${transactionId}/refunds`, { key, body });

  it('a refund with a reason and metadata is its own object: retrieved by id, with its intent; refund.created', async () => {
    const { intentId, transactionId } = await paid();
    const made = await refund(transactionId, {
      amount: 1200,
      reason: 'requested_by_customer',
      metadata: { rma: '77' },
    });
    expect(made.status).toBe(200);
    const id = made.json.id as string;
    const one = await get(`/api/v1/refunds/${id}`);
    expect(one.status).toBe(200);
    expect(one.json).toEqual({
      id,
      object: 'refund',
      amount: 1200,
      currency: 'USD',
      created: clock.now() / 1000,
      transaction: transactionId,
      payment_intent: intentId,
      status: 'succeeded',
      processor_refund_id: null,
      reason: 'requested_by_customer',
      metadata: { rma: '77' },
    });
    const events = await get(`/api/v1/events?type=refund.created&object_id=${id}`);
    expect(events.json.data.map((e: { data: { object: unknown } }) => e.data.object)).toEqual([one.json]);
    const family = await get(`/api/v1/events?type=refund.*&object_id=${id}`);
    expect(family.json.data).toHaveLength(1);
  });

  it('refuses an unknown reason and metadata past 4 KB, naming the field; nothing refunded', async () => {
    const { transactionId } = await paid();
    const bad = await refund(transactionId, { reason: 'bored' });
    expect(bad.status).toBe(400);
    const big = await refund(transactionId, { metadata: { k: 'x'.repeat(4090) } });
    expect(big.status).toBe(400);
    const tx = await get(`/api/v1/transactions/${transactionId}`);
    expect(tx.json.amount_refunded).toBe(0);
  });

  it('lists refunds newest first with keyset paging, by transaction, payment intent and status', async () => {
    const account = await t.newAccount();
    const a = await paid(account, 9000);
    const b = await paid(account, 9000);
    const made: string[] = [];
    for (const [tx, amount] of [
      [a.transactionId, 100],
      [b.transactionId, 200],
      [a.transactionId, 300],
      [b.transactionId, 400],
      [a.transactionId, 500],
    ] as const) {
      made.push((await refund(tx, { amount }, account.secretKey)).json.id);
      clock.advance(1);
    }
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await get(`/api/v1/refunds?limit=2${after ? `&starting_after=${after}` : ''}`, account.secretKey);
      expect(page.status).toBe(200);
      seen.push(...page.json.data.map((r: { id: string }) => r.id));
      if (!page.json.has_more) break;
      after = page.json.data.at(-1).id;
    }
    expect(seen).toEqual([...made].reverse());
    const byTx = await get(`/api/v1/refunds?transaction=${a.transactionId}`, account.secretKey);
    expect(byTx.json.data.map((r: { amount: number }) => r.amount)).toEqual([500, 300, 100]);
    const byIntent = await get(`/api/v1/refunds?payment_intent=${b.intentId}&status=succeeded`, account.secretKey);
    expect(byIntent.json.data.map((r: { amount: number }) => r.amount)).toEqual([400, 200]);
    expect((await get('/api/v1/refunds?status=pending', account.secretKey)).json.data).toEqual([]);
    const bad = await get('/api/v1/refunds?status=done', account.secretKey);
    expect(bad.json.error).toMatchObject({ type: 'invalid_request', param: 'status' });
    const missing = await get('/api/v1/refunds?starting_after=re_nothing', account.secretKey);
    expect(missing.json.error).toMatchObject({ code: 'resource_missing', param: 'starting_after' });
  });

  it("another account's refund is the same 404 as a missing one, and is never listed", async () => {
    const other = await t.newAccount();
    const { transactionId } = await paid(other);
    const foreign = (await refund(transactionId, { amount: 100 }, other.secretKey)).json.id as string;
    const a = await get(`/api/v1/refunds/${foreign}`);
    const b = await get('/api/v1/refunds/re_000000000000000000000000');
    expect([a.status, b.status]).toEqual([404, 404]);
    expect(a.json.error.message.replace(foreign, 'ID')).toBe(
      b.json.error.message.replace('re_000000000000000000000000', 'ID'),
    );
    expect((await get(`/api/v1/refunds?transaction=${transactionId}`)).json.data).toEqual([]);
  });

  it('a sandbox chargeback is dispute.created beside the transaction flag', async () => {
    const { intentId, transactionId } = await paid();
    const cb = await t.call('POST', `/api/v1/sandbox/transactions/${transactionId}/chargeback`, {
      key: shop.secretKey,
    });
    expect(cb.status).toBe(200);
    const events = await get(`/api/v1/events?type=dispute.created&object_id=dp_${transactionId}`);
    expect(events.json.data).toHaveLength(1);
    expect(events.json.data[0].data.object).toMatchObject({
      id: `dp_${transactionId}`,
      object: 'dispute',
      transaction: transactionId,
      payment_intent: intentId,
      amount: 5000,
      status: 'needs_response',
    });
  });
});

describe.each(ENGINES)('refund.updated and dispute.closed from a live acquirer (%s)', (engine) => {
  const suite = useLiveStripe(engine);
  let s: LiveStripe;
  beforeEach(() => {
    s = suite();
  });
  const eventsOf = async (type: string, objectId: string) =>
    (
      (await s.t.call('GET', `/api/v1/events?type=${type}&object_id=${objectId}`, { key: s.shop.secretKey })).json
        .data as { sequence: number; data: { object: Record<string, unknown> } }[]
    ).sort((a, b) => a.sequence - b.sequence);

  it('a live refund is created pending, refund.updated says succeeded, and failed when the bank turns it down', async () => {
    const intent = await s.liveIntent();
    const res = await s.pay(intent.client_secret, '4242424242424242');
    const made = await s.t.call('POST', `/api/v1/transactions/${res.json.transaction_id}/refunds`, {
      key: s.shop.secretKey,
      body: { amount: 500, reason: 'duplicate' },
    });
    expect(made.json.status).toBe('succeeded');
    const created = await eventsOf('refund.created', made.json.id);
    expect(created.map((e) => e.data.object)).toEqual([
      expect.objectContaining({ status: 'pending', reason: 'duplicate' }),
    ]);
    expect((await eventsOf('refund.updated', made.json.id)).map((e) => e.data.object.status)).toEqual(['succeeded']);
    s.double.refunds.setStatus(made.json.processor_refund_id, 'failed');
    await eventually(async () =>
      expect((await eventsOf('refund.updated', made.json.id)).map((e) => e.data.object.status)).toEqual([
        'succeeded',
        'failed',
      ]),
    );
    const one = await s.t.call('GET', `/api/v1/refunds/${made.json.id}`, { key: s.shop.secretKey });
    expect(one.json).toMatchObject({ status: 'failed', processor_refund_id: made.json.processor_refund_id });
  });

  it.each(['won', 'lost'] as const)(
    'a dispute closed as %s: dispute.created then dispute.closed with that status',
    async (outcome) => {
      const intent = await s.liveIntent();
      const res = await s.pay(intent.client_secret, '4000000000000259');
      const tx = res.json.transaction_id as string;
      await eventually(async () => expect(await s.record(tx)).toMatchObject({ chargeback: true }));
      const dispute = s.double.webhooks.events.find((e) => e.type === 'charge.dispute.created');
      const opened = dispute?.data as { object: { id: string } } | undefined;
      s.double.payments.closeDispute(String(opened?.object.id), outcome);
      const closed = await eventually(async () => {
        const found = await eventsOf('dispute.closed', `dp_${tx}`);
        expect(found).toHaveLength(1);
        return found;
      });
      expect(closed[0]?.data.object).toMatchObject({ status: outcome, transaction: tx });
      expect(await eventsOf('dispute.created', `dp_${tx}`)).toHaveLength(1);
      expect(await s.record(tx)).toMatchObject({ chargeback: outcome === 'lost' });
    },
  );
});
