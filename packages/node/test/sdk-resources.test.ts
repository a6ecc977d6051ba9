import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../server/src/workers/webhooks/dispatcher.ts';
import { contractFetch } from '../../server/test/support/contract.ts';
import { ENGINES } from '../../server/test/support/engines.ts';
import { startTestServer, type TestAccount, type TestServer } from '../../server/test/support/server.ts';
import { createSettledTransaction } from '../../server/test/support/transactions.ts';
import { startReceiver } from '../../server/test/support/webhook-receiver.ts';
import { card, confirm } from '../../server/test/support/widget-client.ts';
import { Obolus, ObolusError, type PaymentIntentStatus, type RefundStatus } from '../src/index.ts';

/** Every SDK method against a real server; each answer is also checked against docs/openapi.json. */
describe.each(ENGINES)('@obolus/node against a real server (%s)', (engine) => {
  let t: TestServer;
  let shop: TestAccount;
  let obolus: Obolus;
  beforeAll(async () => {
    t = await startTestServer(engine, { config: { webhooksAllowLoopback: true, webhooksPollMs: 0 } });
    shop = await t.newAccount();
    obolus = new Obolus(shop.secretKey, { baseUrl: t.url, fetch: contractFetch });
  });
  afterAll(() => t.close());

  it('paymentIntents: create, retrieve, list', async () => {
    const created = await obolus.paymentIntents.create({ amount: 2000, currency: 'USD', mode: 'sandbox' });
    expect(created).toMatchObject({ object: 'payment_intent', amount: 2000, status: 'requires_payment' });
    expect(created.client_secret).toMatch(new RegExp(`^pi_${created.id}_secret_`));
    expect(await obolus.paymentIntents.retrieve(created.id)).toEqual(created);
    const page = await obolus.paymentIntents.list({ limit: 1 });
    expect(page.data.map((pi) => pi.id)).toEqual([created.id]);
  });

  it('paymentIntents: update, cancel, capture (manual), list with filters; typed statuses', async () => {
    const own = await t.newAccount();
    const client = new Obolus(own.secretKey, { baseUrl: t.url, fetch: contractFetch });
    const open = await client.paymentIntents.create({
      amount: 2000,
      currency: 'USD',
      mode: 'sandbox',
      reference: 'o-1',
    });
    const updated = await client.paymentIntents.update(open.id, { amount: 2500, metadata: { a: '1' } });
    expect(updated).toMatchObject({ amount: 2500, metadata: { a: '1' } });
    const canceled = await client.paymentIntents.cancel(open.id, { cancellation_reason: 'abandoned' });
    const status: PaymentIntentStatus = canceled.status;
    expect(status).toBe('canceled');
    await expect(client.paymentIntents.cancel(open.id)).rejects.toMatchObject({ code: 'intent_unexpected_state' });

    const manual = await client.paymentIntents.create({
      amount: 3000,
      currency: 'USD',
      mode: 'sandbox',
      reference: 'o-2',
      capture_method: 'manual',
    });
    await confirm(t, own.clientKey, manual.client_secret, card('4242424242424242'));
    expect((await client.paymentIntents.retrieve(manual.id)).status).toBe('requires_capture');
    const captured = await client.paymentIntents.capture(manual.id, { amount_to_capture: 1000 });
    expect(captured.status).toBe('succeeded');
    expect((await client.paymentIntents.list({ reference: 'o-2' })).data.map((pi) => pi.id)).toEqual([manual.id]);
    expect((await client.paymentIntents.list({ status: 'canceled' })).data.map((pi) => pi.id)).toEqual([open.id]);
    expect((await client.paymentIntents.list({ mode: 'live' })).data).toEqual([]);
    const settled = await client.transactions.list({ mode: 'sandbox', status: 20 });
    expect(settled.data.map((tx) => tx.amount)).toEqual([1000]);
  });

  it('refunds: retrieve and list, by transaction, payment intent and status', async () => {
    const own = await t.newAccount();
    const client = new Obolus(own.secretKey, { baseUrl: t.url, fetch: contractFetch });
    const settled = await createSettledTransaction(t, own, { amount: 5000 });
    const made = await client.refunds.create(settled.id, { amount: 700, reason: 'duplicate', metadata: { k: 'v' } });
    const one = await client.refunds.retrieve(made.id);
    const status: RefundStatus = one.status;
    expect(status).toBe('succeeded');
    expect(one).toMatchObject({ id: made.id, amount: 700, reason: 'duplicate', payment_intent: settled.intentId });
    expect((await client.refunds.list({ transaction: settled.id })).data.map((r) => r.id)).toEqual([made.id]);
    expect((await client.refunds.list({ paymentIntent: settled.intentId, status: 'pending' })).data).toEqual([]);
    await expect(client.refunds.retrieve('re_missing')).rejects.toMatchObject({
      status: 404,
      code: 'resource_missing',
    });
  });

  it('a list is async-iterable across pages, without repeating or skipping', async () => {
    const own = await t.newAccount();
    const client = new Obolus(own.secretKey, { baseUrl: t.url, fetch: contractFetch });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await client.paymentIntents.create({ amount: 100 + i, currency: 'USD', mode: 'sandbox' })).id);
    const seen: string[] = [];
    for await (const pi of client.paymentIntents.list({ limit: 3 })) seen.push(pi.id);
    expect(seen).toEqual([...ids].reverse());
    const first = await client.paymentIntents.list({ limit: 3 });
    expect(first.hasMore).toBe(true);
    const third = await (await first.nextPage())?.nextPage();
    expect(third?.data.map((pi) => pi.id)).toEqual([ids[0]]);
    expect(third?.hasMore).toBe(false);
    expect(await third?.nextPage()).toBeNull();
    const fromSecond: string[] = [];
    for await (const pi of (await first.nextPage()) ?? []) fromSecond.push(pi.id);
    expect(fromSecond).toEqual(ids.slice(0, 4).reverse());
  });

  it('transactions: retrieve and list with filters; refunds.create; a sandbox chargeback', async () => {
    const settled = await createSettledTransaction(t, shop, { amount: 5000, externalid: 'order-77' });
    const retrieved = await obolus.transactions.retrieve(settled.id);
    expect(retrieved).toMatchObject({ id: settled.id, status: 20, statustext: 'Settled', amountpaid: 50 });
    const listed = await obolus.transactions.list({ externalid: 'order-77', created: { gte: retrieved.created } });
    expect(listed.data.map((tx) => tx.id)).toEqual([settled.id]);
    expect((await obolus.transactions.list({ status: 30 })).data).toEqual([]);
    const refund = await obolus.refunds.create(settled.id, { amount: 1500 });
    expect(refund).toMatchObject({ object: 'refund', amount: 1500, transaction: settled.id });
    expect(refund.transaction_record.amount_refunded).toBe(1500);
    const rest = await obolus.refunds.create(settled.id);
    expect(rest.amount).toBe(3500);
    // The transactions surface's body is {"error": "…"}: its code comes from Obolus-Error-Code.
    await expect(obolus.refunds.create(settled.id)).rejects.toMatchObject({
      status: 409,
      type: 'invalid_request',
      code: 'transaction_already_refunded',
    });
    const disputed = await createSettledTransaction(t, shop);
    expect((await obolus.transactions.simulateChargeback(disputed.id)).chargeback).toBe(true);
  });

  it('products: create, retrieve, update, list', async () => {
    const product = await obolus.products.create({
      name: 'Sticker pack',
      amount: 500,
      currency: 'USD',
      mode: 'sandbox',
    });
    expect(product).toMatchObject({ object: 'product', name: 'Sticker pack', active: true });
    expect(await obolus.products.retrieve(product.id)).toEqual(product);
    const updated = await obolus.products.update(product.id, { amount: 700, description: 'Five stickers' });
    expect(updated).toMatchObject({ amount: 700, description: 'Five stickers' });
    const all: string[] = [];
    for await (const p of obolus.products.list({ limit: 1 })) all.push(p.id);
    expect(all).toContain(product.id);
  });

  it('webhookEndpoints: create, retrieve, update, list, roll the secret, resend, attempts, delete; events', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await obolus.webhookEndpoints.create({
        url: receiver.url,
        enabled_events: ['*'],
        mode: 'sandbox',
      });
      expect(endpoint.secret).toMatch(/^whsec_/);
      const { secret: _secret, ...shown } = endpoint;
      expect(await obolus.webhookEndpoints.retrieve(endpoint.id)).toEqual(shown);
      expect((await obolus.webhookEndpoints.update(endpoint.id, { description: 'orders' })).description).toBe('orders');
      expect((await obolus.webhookEndpoints.list()).data.map((e) => e.id)).toContain(endpoint.id);
      const rolled = await obolus.webhookEndpoints.rollSecret(endpoint.id, { gracePeriodHours: 1 });
      expect(rolled.secret).not.toBe(endpoint.secret);
      expect(rolled.previous_secret_expires_at).toBeGreaterThan(rolled.updated);

      const intent = await obolus.paymentIntents.create({ amount: 900, currency: 'USD', mode: 'sandbox' });
      const events = await obolus.events.list({ objectId: intent.id, type: 'payment_intent.*' });
      const [created] = events.data;
      expect(created).toMatchObject({ type: 'payment_intent.created', data: { object: { id: intent.id } } });
      expect(await obolus.events.retrieve(created!.id)).toEqual(created);
      const delivery = await obolus.webhookEndpoints.resend(endpoint.id, created!.id);
      expect(delivery).toMatchObject({ event: created!.id, webhook_endpoint: endpoint.id, origin: 'resend' });
      await new WebhookDispatcher(t.server.services).runOnce();
      // The event went out twice: once as it happened (fan-out), once resent.
      const attempts = (await obolus.webhookEndpoints.listAttempts(endpoint.id, { eventId: created!.id })).data;
      expect(attempts.find((a) => a.webhook_delivery === delivery.id)).toMatchObject({ succeeded: true });
      expect(attempts.every((a) => a.event === created!.id)).toBe(true);
      // What arrived verifies with the SDK and the current secret, and is the event the API shows.
      const arrived = receiver.received.filter((w) => w.json?.id === created!.id);
      expect(arrived.length).toBeGreaterThan(0);
      for (const webhook of arrived) {
        expect(obolus.webhooks.verify(webhook.body, webhook.headers, rolled.secret as string)).toEqual(created);
      }
      expect(await obolus.webhookEndpoints.delete(endpoint.id)).toEqual({
        id: endpoint.id,
        object: 'webhook_endpoint',
        deleted: true,
      });
    } finally {
      await receiver.close();
    }
  });

  it('errors: ObolusError with type, code, message, param, status and requestId', async () => {
    const error = await obolus.paymentIntents.create({ amount: 0, currency: 'USD' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObolusError);
    expect(error).toMatchObject({ type: 'invalid_request', code: 'parameter_invalid', param: 'amount', status: 400 });
    expect((error as ObolusError).requestId).toMatch(/^req_/);
    const bad = new Obolus('sk_nope', { baseUrl: t.url, fetch: contractFetch });
    await expect(bad.paymentIntents.list()).rejects.toMatchObject({ type: 'authentication', status: 401 });
  });

  it('the transactions surface\'s {error: "…"} bodies become ObolusErrors too', async () => {
    const missing = await obolus.transactions.retrieve('0123456789abcdef01234567').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ObolusError);
    expect(missing).toMatchObject({ status: 404, type: 'invalid_request', code: 'resource_missing' });
    expect((missing as ObolusError).message.length).toBeGreaterThan(5);
    expect((missing as ObolusError).requestId).toMatch(/^req_/);
    const bad = new Obolus('sk_nope', { baseUrl: t.url, fetch: contractFetch });
    await expect(bad.transactions.retrieve('x')).rejects.toMatchObject({
      status: 401,
      type: 'authentication',
      code: 'api_key_invalid',
    });
  });
});
